// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkAPI
import InkStorage

/// The local API's desk is where a hosted signature screen's requests come from: the screen
/// takes the desk's messages on the kiosk thread, and tells it how each request ended.
extension SignatureDesk: SignatureHost {
    func deliver(to screen: SignatureScreen, _ context: ScreenContext) {
        for message in takeMessages() {
            switch message {
            case .start(let request):
                screen.start(.init(id: request.id, prompt: request.prompt, document: request.document), context)
            case .cancel(let id):
                screen.end(id: id, .cancelled(reason: "cancelled by host"), context)
            case .timeout(let id):
                let seconds = status(id: id)?.timeout.map { "\(Int($0)) s" } ?? "the time allowed"
                screen.end(id: id, .timedOut(reason: "no signature within \(seconds)"), context)
            }
        }
    }
}

extension SignatureScreen {
    /// Takes requests from `desk` and reports every outcome back to it.
    public func serve(_ desk: SignatureDesk) {
        host = desk
        onFinished = { [weak desk, unowned self] id, outcome in
            switch outcome {
            case .accepted(let paths, let samples, let heldPDF):
                let files = OutboxArchive.files(paths: paths, samples: samples, encryptedTo: self.settings.encryptTo?.fingerprint)
                desk?.finish(id: id, state: .accepted, reason: nil, files: files, heldPDF: heldPDF)
            case .cancelled(let reason):
                desk?.finish(id: id, state: .cancelled, reason: reason, files: nil)
            case .timedOut(let reason):
                desk?.finish(id: id, state: .timedOut, reason: reason, files: nil)
            }
        }
    }
}
