// SPDX-License-Identifier: Apache-2.0
import InkDisplay
import InkPipeline

/// The screen opened on a second core while the configuration is read, with what the command
/// line names (nothing, on an appliance: the first connected screen in its preferred mode). It
/// is used only if the configuration names the same card, connector and mode; if it names others,
/// it is closed unused and those are opened. Opening it (the card's resources, the mode's
/// buffers, the frames' RAM picture, all painted with the paper: `DRMDisplay(blank:)`) does not
/// depend on anything the configuration says.
public final class DisplayOpening {
    private let wanted: Choice
    /// The kiosk's paper (not configurable): what the display starts with.
    static let paper = PipelineOptions().background
    private let opening: StartedElsewhere<DRMDisplay>

    /// Which screen, as `KioskOptions` names it (nil: the first, the preferred).
    public struct Choice: Equatable, Sendable {
        public var card: String?
        public var connector: String?
        public var mode: String?
        public init(card: String?, connector: String?, mode: String?) {
            self.card = card
            self.connector = connector
            self.mode = mode
        }
    }

    public init(_ wanted: Choice) {
        self.wanted = wanted
        opening = StartedElsewhere(name: "ink-display-open") {
            try DRMDisplay(cardPath: wanted.card, connectorName: wanted.connector, modeName: wanted.mode, blank: Self.paper)
        }
    }

    /// The display opened for `choice`: the one opened beside the configuration's read when it is
    /// the same (its error, if it failed, is the error), else a new one; showing with `kms`
    /// (chosen before its first mode set: another interface needs no new display).
    func take(for choice: Choice, kms: KMSInterface) throws -> DRMDisplay {
        guard choice == wanted else {
            _ = try? opening.take()   // closed here, before the configured card is opened
            return try DRMDisplay(cardPath: choice.card, connectorName: choice.connector, modeName: choice.mode, blank: Self.paper, kms: kms)
        }
        let display = try opening.take()
        try display.use(kms)
        return display
    }
}

extension KioskOptions {
    /// The screen these options name.
    var displayChoice: DisplayOpening.Choice { DisplayOpening.Choice(card: card, connector: connector, mode: mode) }
}
