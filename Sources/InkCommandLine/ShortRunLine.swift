// SPDX-License-Identifier: Apache-2.0
/// The command line that starts the kiosk on the appliance and under the systemd unit, `run
/// --config FILE [--journal FILE] [--require-console]` (also as `--config=FILE`), recognised as
/// it is, without swift-argument-parser: its parse of `run` (32 options, reflected over several
/// times per parse, and the Swift runtime's first look-ups of every type it meets) took 100 ms of
/// the kiosk's start under emulation, and 90 ms still for a two-option view of it. Only exactly
/// this form is taken; any other command line (another flag, a value that starts with "-", an
/// option twice, --help) goes to the whole command, which parses, checks and reports it as ever,
/// so the two can never read one command line differently.
public struct ShortRunLine: Equatable, Sendable {
    public var config: String?
    public var journal: String?
    public var requireConsole = false

    public init(config: String? = nil, journal: String? = nil, requireConsole: Bool = false) {
        self.config = config; self.journal = journal; self.requireConsole = requireConsole
    }

    /// `arguments` (the program's name first) as `run` with only these options, or nil.
    public static func matching(_ arguments: [String]) -> ShortRunLine? {
        guard arguments.count > 1, arguments[1] == "run" else { return nil }
        var line = ShortRunLine()
        var rest = arguments.dropFirst(2)
        while let word = rest.popFirst() {
            if word == "--require-console" {
                guard !line.requireConsole else { return nil }
                line.requireConsole = true
                continue
            }
            let name: Substring, value: String
            if let equals = word.firstIndex(of: "=") {
                name = word[..<equals]
                value = String(word[word.index(after: equals)...])
            } else {
                guard let next = rest.popFirst() else { return nil }
                name = Substring(word)
                value = next
            }
            guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch name {
            case "--config" where line.config == nil: line.config = value
            case "--journal" where line.journal == nil: line.journal = value
            default: return nil
            }
        }
        return line
    }
}
