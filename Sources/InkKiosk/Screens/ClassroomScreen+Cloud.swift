// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkClassroom
import InkConfig
import InkCore
import InkPipeline
import InkRender
import InkStorage

/// The school's cloud on the classroom screen: Hand in (a Save whose files go into the cloud
/// agent's outbox), the hand-in's state, and the enrolment's QR code. The agent does the network;
/// the screen only writes the outbox and reads the agent's files, each on a chore.
extension ClassroomScreen {
    /// The name a hand-in is known by on the tablet and in the ledger: the worksheet's title, or "notebook".
    func handInTitle(_ pipeline: FramePipeline) -> String { pipeline.notebook.worksheet?.title ?? "notebook" }

    /// Saves the notebook as Save does, then moves the files into the outbox (synced), and
    /// removes the save: the outbox's copy is the only one, and it goes once the server has it.
    func handIn(_ context: ScreenContext) {
        guard let cloud = settings.cloud, !saving, !handingIn, !context.pipeline.notebook.isBlank,
              !cloudView.isClosed(now: Int64(time(nil))) else { return }
        let title = handInTitle(context.pipeline)
        handingIn = true
        save(context) { [weak self] failure in
            guard let self else { return }
            guard failure == nil else { handingIn = false; return }   // Save's own message says why
            let files = Self.handInFiles(lastSaved, device: cloud.deviceName, title: title, pngs: cloud.handInPNG)
            let saved = lastSaved
            let outbox = CloudFiles(cloud).outbox
            message = Notice(settings.text.handingIn)
            context.chores.run({ () -> HandInItem in
                let item = try outbox.enqueue(title: title, handedIn: Int64(time(nil)), files: files)
                for path in saved { unlink(path) }
                return item
            }) { [weak self] result in
                guard let self else { return }
                handingIn = false
                cloudStale = true
                switch result {
                case .success(let item):
                    message = nil   // the hand-in's own line says what becomes of it, read from the outbox and the ledger
                    context.log.notice("handed in \(title.debugDescription): \(item.files.map(\.remote).joined(separator: ", ")) in the outbox (\(item.id))")
                case .failure(let error):
                    let reason = (error as? HandInOutbox.Refused)?.description ?? StorageError.reason(error)
                    message = Notice(UIText.format(settings.text.handInRefused, reason), warning: true)
                    context.log.error("hand-in of \(title.debugDescription) not put in the outbox: \(error)")
                }
            }
        }
    }

    /// The outbox's files for a save's paths: the PDF as DEVICE-TITLE.pdf, and each page's PNG as
    /// DEVICE-TITLE-pageN.png when asked for. A resubmission has the same names, so it replaces
    /// (If-Match) the device's own earlier hand-in of the worksheet and nothing else.
    static func handInFiles(_ saved: [String], device: String, title: String, pngs: Bool) -> [(remote: String, source: String)] {
        let base = "\(device)-\(SaveName.stem(title))"
        var files: [(remote: String, source: String)] = []
        if let pdf = saved.first(where: { $0.hasSuffix(".pdf") }) { files.append((remote: base + ".pdf", source: pdf)) }
        if pngs {
            for (i, png) in saved.filter({ $0.hasSuffix(".png") }).enumerated() {
                files.append((remote: "\(base)-page\(i + 1).png", source: png))
            }
        }
        return files
    }

    /// Reads the agent's files again on a chore when they changed (or never were read).
    func readCloud(_ context: ScreenContext) {
        guard let link = cloudLink, let cloud = settings.cloud else { return }
        if link.drain() { cloudStale = true }
        guard cloudStale, !cloudReading else { return }
        cloudStale = false
        cloudReading = true
        context.chores.run({ CloudView.read(cloud) }) { [weak self] result in
            guard let self else { return }
            cloudReading = false
            guard case .success(let view) = result else { return }
            // What the pupil is shown, in the log too: an engineer (and the VM proof) sees what the screen said.
            let title = handInTitle(context.pipeline)
            if let line = view.handInLine(title, settings.text)?.0, line != cloudView.handInLine(title, settings.text)?.0 {
                context.log.notice("hand-in \(title.debugDescription) on screen: \(line)")
            }
            if let url = view.status?.loginURL, url != cloudView.status?.loginURL {
                context.log.notice("enrolment: the login's QR code on screen (\(url))")
            }
            cloudView = view
        }
    }

    /// While the tablet waits to be enrolled: a card with the login URL as a QR code (dark
    /// modules merged into runs, so a code is a few hundred boxes), the prompt and the URL.
    func enrolmentCard(below top: Double) -> (elements: [UIElement], area: Rect)? {
        guard let status = cloudView.status, let url = status.loginURL,
              (status.loginExpires ?? .max) > Int64(time(nil)) else { return nil }
        if enrolmentCode?.url != url { enrolmentCode = (url, QRCode(url)) }
        guard let code = enrolmentCode?.code else { return nil }
        let s = style
        let quiet = 4   // the quiet zone QR readers need, in modules
        let side = min(s.metrics.mm(60), Double(s.metrics.size.height) * 0.5)
        let module = (side / Double(code.width + 2 * quiet)).rounded(.down)
        let codeSide = module * Double(code.width + 2 * quiet)
        let textWidth = max(codeSide, s.metrics.mm(70))
        let card = Rect(x: Double(s.metrics.size.width) - textWidth - 3 * s.gap, y: top + s.gap,
                        width: textWidth + 2 * s.gap, height: codeSide + 2 * s.target + 3 * s.gap)
        var elements: [UIElement] = [.box(card, fill: .white, border: RGBA(0.4, 0.4, 0.45), radius: s.gap)]
        let origin = Point(card.minX + (card.width - codeSide) / 2 + module * Double(quiet), card.minY + s.gap + module * Double(quiet))
        for y in 0..<code.width {
            var x = 0
            while x < code.width {
                guard code.isDark(x, y) else { x += 1; continue }
                let start = x
                while x < code.width, code.isDark(x, y) { x += 1 }
                elements.append(.box(Rect(x: origin.x + Double(start) * module, y: origin.y + Double(y) * module,
                                          width: Double(x - start) * module, height: module), fill: .black))
            }
        }
        let textTop = card.minY + s.gap + codeSide
        elements.append(.text(settings.text.enrolPrompt, in: Rect(x: card.minX + s.gap, y: textTop, width: card.width - 2 * s.gap, height: s.target),
                              size: s.fontSize * 0.8, color: RGBA(0.1, 0.1, 0.15), bold: true))
        elements.append(.text(url, in: Rect(x: card.minX + s.gap, y: textTop + s.target, width: card.width - 2 * s.gap, height: s.target),
                              size: s.fontSize * 0.6, color: RGBA(0.3, 0.3, 0.35)))
        return (elements, card)
    }
}
