// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

// What the kiosk used of Foundation's FileHandle (in Foundation proper, which links ICU; the
// kiosk links FoundationEssentials only): reading a small file whole through a descriptor it
// owns (writing to standard error is InkLog's).

/// An open file descriptor, closed when this goes (as FileHandle's `closeOnDealloc: true`).
public final class OwnedFileDescriptor {
    public let fd: Int32

    public init(_ fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// The rest of the file, read to its end.
    public func readToEnd() throws -> Data? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemCallError("read")
            }
            if n == 0 { return data }
            data.append(contentsOf: chunk[..<n])
        }
    }
}
