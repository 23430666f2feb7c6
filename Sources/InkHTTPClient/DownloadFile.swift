// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A download's file, opened for appending (created 0600); its size is where a resumed download starts.
final class DownloadFile {
    let path: String
    private let fd: Int32
    private(set) var size: Int64

    init(path: String, url: String) throws(HTTPError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HTTPError(method: "GET", url: url, reason: .file(operation: "open", path: path, errno: errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = errno
            Glibc.close(fd)
            throw HTTPError(method: "GET", url: url, reason: .file(operation: "stat", path: path, errno: failure))
        }
        size = Int64(info.st_size)
    }

    /// nil, or errno of the failed write.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        size += Int64(bytes.count)
        return nil
    }

    func truncate() throws(HTTPError) {
        guard ftruncate(fd, 0) == 0 else {
            throw HTTPError(method: "GET", url: path, reason: .file(operation: "truncate", path: path, errno: errno))
        }
        size = 0
    }

    func close() { Glibc.close(fd) }
}
