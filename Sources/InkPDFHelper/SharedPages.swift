import CCage
import FoundationEssentials
import Glibc

/// Memory shared with the helper (a memfd): the helper draws a page into it, the kiosk reads
/// the pixels without a copy through the socket. Also carries the ink to a `write`.
public final class SharedMemory {
    public let fd: Int32
    public let bytes: Int
    let base: UnsafeMutableRawPointer

    init(bytes: Int, name: String = "inkkiosk-page") throws {
        let fd = ik_memfd(name)
        guard fd >= 0 else { throw HelperChannel.Failure.system("memfd_create", errno) }
        guard ftruncate(fd, off_t(bytes)) == 0 else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("ftruncate \(bytes)", e)
        }
        guard let p = mmap(nil, max(bytes, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("mmap \(bytes)", e)
        }
        self.fd = fd; self.bytes = bytes; base = p
    }

    /// `data` in a memfd of its own size.
    public convenience init(holding data: [UInt8], name: String) throws {
        try self.init(bytes: data.count, name: name)
        data.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
    }

    deinit {
        munmap(base, max(bytes, 1))
        Glibc.close(fd)
    }
}

/// A mapping of a memfd the other side passed, checked to be as large as claimed.
struct MappedMemory {
    let base: UnsafeMutableRawPointer
    let bytes: Int

    init(fd: Int32, atLeast needed: Int, writable: Bool) throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HelperChannel.Failure.system("fstat", errno) }
        guard info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) >= needed, needed >= 0 else {
            throw HelperChannel.Failure.protocolError("a shared buffer of \(info.st_size) bytes where \(needed) are needed")
        }
        let length = max(Int(info.st_size), 1)
        let prot = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let p = mmap(nil, length, prot, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw HelperChannel.Failure.system("mmap", errno)
        }
        base = p; bytes = length
    }

    func unmap() { munmap(base, bytes) }
}
