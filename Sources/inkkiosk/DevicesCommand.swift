// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Glibc
import InkInput
import InkDisplay

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices (with their capabilities) and DRM cards, connectors and modes.")

    @Option(help: "libinput seat.")
    var seat = "seat0"

    func run() throws {
        print("Input devices on \(seat):")
        do {
            let s = try LibinputSeat(seat: seat)
            _ = s.dispatch()
            let details = s.details()
            if details.isEmpty { print("  (no tablet, touchscreen or tablet pad)") }
            for d in details {
                let i = d.info
                print("  \(i.id). \(i.name)  [\(i.kind.rawValue)\(i.direct ? ", direct" : "")]  \(d.node)  "
                      + (d.sizeKnown ? "\(fmt(i.widthMM))x\(fmt(i.heightMM)) mm" : "size unknown"))
                if !d.axes.isEmpty { print("       axes: \(d.axes.joined(separator: ", "))") }
                if !d.buttons.isEmpty { print("       buttons: \(d.buttons.joined(separator: ", "))") }
                if let smoothing = d.smoothing { print("       smoothing: \(smoothing)") }
                if let n = d.touchSlots { print("       touch slots: \(n < 0 ? "unknown" : String(n))") }
                if let n = d.padButtons { print("       pad buttons: \(n), rings: \(d.padRings ?? 0), strips: \(d.padStrips ?? 0)") }
            }
            // "quirks": libinput's own word when a quirks file has an error and it loaded none.
            let ignored = s.messages.filter { $0.contains("gnor") || $0.contains("missing") || $0.contains("quirks") }
            if !ignored.isEmpty {
                print("  libinput ignored or complained about:")
                for m in ignored { print("    \(m)") }
            }
        } catch {
            print("  \(error)")
        }
        print("Displays:")
        let cards = DRMCard.all()
        if cards.isEmpty { print("  (no /dev/dri/card*)") }
        for path in cards {
            do {
                let card = try DRMCard(path: path)
                print("  \(path)  driver \(card.driverName)")
                for c in card.connectors() {
                    print("    \(c.name): \(c.connected ? "connected" : "disconnected")"
                          + (c.modes.isEmpty ? "" : ", modes \(c.modes.prefix(6).joined(separator: " "))\(c.modes.count > 6 ? " …" : "")")
                          + (c.preferred.map { " (preferred \($0))" } ?? ""))
                }
            } catch {
                print("  \(path): \(error)")
            }
        }
    }

    private func fmt(_ v: Double) -> String { String(cFormat: "%.0f", v) }
}
