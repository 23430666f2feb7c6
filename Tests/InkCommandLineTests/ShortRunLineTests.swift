// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkCommandLine
import InkTestSupport
import Testing

/// The kiosk's start reads its usual command lines without swift-argument-parser: the lines the
/// systemd unit and the appliance really run must be among them, and anything else must go to the
/// whole parser (which reports what is wrong).
struct ShortRunLineTests {
    /// The words of the unit's `ExecStart=` as systemd splits them (no quotes in ours).
    func execStart(_ unit: String) throws -> [String] {
        let text = try String(contentsOf: Fixtures.packageDirectory.appendingPathComponent(unit), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
    }

    @Test func theSystemdUnitsCommandLineTakesTheShortPath() throws {
        let words = try execStart("deploy/systemd/inkkiosk.service")
        let line = try #require(ShortRunLine.matching(words), "the unit's command line \(words) goes to the slow parser")
        #expect(line == ShortRunLine(config: "/etc/inkkiosk/inkkiosk.toml", journal: "/var/lib/inkkiosk/journal.inkj", requireConsole: true))
    }

    @Test func theAppliancesCommandLineTakesTheShortPath() {
        // scripts/appliance/init.sh: `run --config FILE` and, with a data partition, `--journal FILE`.
        #expect(ShortRunLine.matching(["inkkiosk", "run", "--config", "/etc/inkkiosk/inkkiosk.toml"])
                == ShortRunLine(config: "/etc/inkkiosk/inkkiosk.toml"))
        #expect(ShortRunLine.matching(["inkkiosk", "run", "--config=/etc/i.toml", "--journal", "/data/j.inkj"])
                == ShortRunLine(config: "/etc/i.toml", journal: "/data/j.inkj"))
    }

    @Test func everyOtherLineGoesToTheWholeParser() {
        for words in [["inkkiosk", "record", "--config", "a"], ["inkkiosk", "run", "--help"], ["inkkiosk", "run", "--config", "a", "--config", "b"],
                      ["inkkiosk", "run", "--config", "-a"], ["inkkiosk", "run", "--config"], ["inkkiosk", "run", "--config="],
                      ["inkkiosk", "run", "--require-console", "--require-console"], ["inkkiosk", "run", "--seat", "seat1"],
                      ["inkkiosk", "run", "--require-console=yes"]] {
            #expect(ShortRunLine.matching(words) == nil, "\(words)")
        }
    }
}
