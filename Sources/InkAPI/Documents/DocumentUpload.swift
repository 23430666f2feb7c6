// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkLoop
import NIOCore

/// One `POST /documents` body on its way to disk: each chunk written (write(2) on the event
/// loop: it lands in the page cache; the fsync comes later, on a task) to a temporary file in
/// the documents directory as it arrives, never gathered in memory. Owned by its connection's
/// handler; `abandon` (the client left, the body was refused) leaves no file behind.
final class DocumentUpload {
    let path: String
    let limit: Int
    private(set) var received = 0
    private var fd: Int32
    private let store: DocumentStore

    /// Opens `DIR/.upload-XXXXXX` (mode 0600), holding one of the store's upload places
    /// (`DocumentStore.uploadsAtOnce`): 503 when they are taken, 507 when no file can be made.
    init(for store: DocumentStore) throws(APIProblem) {
        guard store.reserveUpload() else {
            throw APIProblem(.serviceUnavailable, "\(DocumentStore.uploadsAtOnce) documents are being uploaded already: try again")
        }
        var template = Array("\(store.directory)/\(DocumentStore.uploadPrefix)XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            let problem = APIProblem(.insufficientStorage, "cannot take the document: \(SystemCallError("make an upload file in", path: store.directory))")
            store.releaseUpload()
            throw problem
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        fchmod(fd, 0o600)
        self.fd = fd
        self.store = store
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        limit = store.limits.maxDocumentBytes
    }

    enum Outcome { case written, tooLarge, failed(String) }

    func write(_ chunk: ByteBuffer) -> Outcome {
        guard received + chunk.readableBytes <= limit else { return .tooLarge }
        do {
            try chunk.withUnsafeReadableBytes { try DocumentFiles.writeAll(fd, $0, path) }
        } catch {
            return .failed("\(error)")
        }
        received += chunk.readableBytes
        return .written
    }

    /// The body is whole: the file is closed and its path handed on, with the upload place
    /// (`DocumentStore.accept` removes the one and frees the other).
    func finish() -> String {
        close(fd)
        fd = -1
        return path
    }

    /// The body will not be kept: the file goes, the place is free.
    func abandon() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(path)
        store.releaseUpload()
    }
}
