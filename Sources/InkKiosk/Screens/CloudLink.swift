// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkClassroom
import InkConfig
import CQREncode
import InkCore

/// What the classroom screen knows of the school's cloud: the cloud agent's files (its status,
/// the hand-in ledger, the hand-out folder's deadline), read on a chore, never on the kiosk's thread.
struct CloudView: Sendable, Equatable {
    var status: CloudStatus?
    var ledger = HandInLedger()
    var deadline: Int64?
    /// Titles with a hand-in in the outbox (not yet tried, or waiting).
    var waiting: Set<String> = []

    static func read(_ settings: CloudSettings) -> CloudView {
        let files = CloudFiles(settings)
        var view = CloudView()
        view.status = (try? Data(contentsOf: URL(fileURLWithPath: files.status))).flatMap { try? JSONDecoder().decode(CloudStatus.self, from: $0) }
        view.ledger = (try? HandInLedger.load(files.ledger)) ?? HandInLedger()
        view.deadline = (try? HandOutState.load(files.handOutState))?.deadline
        view.waiting = Set(((try? files.outbox.items()) ?? []).map(\.title))
        return view
    }

    /// The line the pupil sees about the hand-in of `title`, if there is one: (text, warning).
    func handInLine(_ title: String, _ text: UIText) -> (String, Bool)? {
        let state = ledger.states[title]
        if waiting.contains(title), state == nil || state?.phase == .sent {
            return (text.handInQueued, false)   // in the outbox, not tried yet (or a new one after a sent one)
        }
        guard let state else { return nil }
        switch state.phase {
        case .sent: return (text.handInSent, false)
        case .waiting: return (UIText.format(text.handInWaiting, state.reason ?? "…"), false)
        case .failed: return (UIText.format(text.handInFailed, state.reason ?? "?"), true)
        }
    }

    func isClosed(now: Int64) -> Bool { deadline.map { now >= $0 } ?? false }
}

/// The kiosk's watch on the cloud agent's state folder: it wakes the kiosk when the agent renames
/// one of its files into place, so the screen reads them again only when they changed.
enum CloudLink {
    static func watch(_ settings: CloudSettings) -> DirectoryWatch {
        // The agent makes it too; whichever comes first (the same user: the kiosk writes the outbox, the agent empties it).
        _ = mkdir(settings.stateDirectory, 0o700)
        return DirectoryWatch(settings.stateDirectory, events: UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE))
    }
}

/// A QR code's modules (libqrencode): the login URL a teacher's phone opens.
struct QRCode: Equatable {
    let width: Int
    let dark: [Bool]

    init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        width = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour (1: dark); the other bits are libqrencode's own.
        dark = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    func isDark(_ x: Int, _ y: Int) -> Bool { dark[y * width + x] }
}
