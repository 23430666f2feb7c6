// SPDX-License-Identifier: Apache-2.0
import CCage
import FoundationEssentials
import Glibc

/// The seals of a memfd shared with the helper (fcntl's F_SEAL_*).
public struct Seals: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// No more seals may be added (nor any taken away: none ever can be).
    public static let seal = Seals(rawValue: IK_F_SEAL_SEAL)
    public static let shrink = Seals(rawValue: IK_F_SEAL_SHRINK)
    public static let grow = Seals(rawValue: IK_F_SEAL_GROW)
    public static let write = Seals(rawValue: IK_F_SEAL_WRITE)

    /// Its size fixed for good: whoever maps it can never meet the end of the file under the mapping (SIGBUS).
    public static let fixedSize: Seals = [.shrink, .grow, .seal]

    /// The seals on `fd`, or nil with errno (not a memfd, or one made without MFD_ALLOW_SEALING: EINVAL).
    public static func of(_ fd: Int32) -> Seals? {
        let s = ik_fcntl(fd, IK_F_GET_SEALS, 0)
        return s < 0 ? nil : Seals(rawValue: s)
    }

    public var description: String {
        let names: [(Seals, String)] = [(.grow, "grow"), (.shrink, "shrink"), (.write, "write"), (.seal, "seal")]
        let set = names.filter { contains($0.0) }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: ", ")
    }
}

/// Memory shared with the helper (a memfd): the helper draws a page into it, the kiosk reads
/// the pixels without a copy through the socket. Sealed against growing and shrinking before
/// it is passed: a helper taken over cannot truncate it under the kiosk's mapping (a SIGBUS
/// in the kiosk) nor grow it into the board's memory.
public final class SharedMemory {
    public let fd: Int32
    public let bytes: Int
    let base: UnsafeMutableRawPointer

    public init(bytes: Int, name: String = "inkkiosk-page") throws {
        let fd = try Self.memfd(name, bytes: bytes)
        guard Self.seal(fd, .fixedSize) else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("F_ADD_SEALS \(Seals.fixedSize)", e)
        }
        guard let p = mmap(nil, max(bytes, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("mmap \(bytes)", e)
        }
        self.fd = fd; self.bytes = bytes; base = p
    }

    deinit {
        munmap(base, max(bytes, 1))
        Glibc.close(fd)
    }

    /// A memfd of `bytes`, close-on-exec, sealable.
    static func memfd(_ name: String, bytes: Int) throws -> Int32 {
        let fd = ik_memfd(name)
        guard fd >= 0 else { throw HelperChannel.Failure.system("memfd_create", errno) }
        guard ftruncate(fd, off_t(bytes)) == 0 else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("ftruncate \(bytes)", e)
        }
        return fd
    }

    static func seal(_ fd: Int32, _ seals: Seals) -> Bool { ik_fcntl(fd, IK_F_ADD_SEALS, Int(seals.rawValue)) == 0 }
}

/// Bytes handed to the helper to read (the ink of a Save): a memfd written, then sealed against
/// any change, so the helper can only read it, and maps it privately (older kernels refuse a
/// shared mapping of a write-sealed memfd).
public final class SealedBytes {
    public let fd: Int32
    public let bytes: Int

    public init(_ data: [UInt8], name: String) throws {
        let fd = try SharedMemory.memfd(name, bytes: data.count)
        var written = 0
        while written < data.count {
            let n = data.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, data.count - written, off_t(written)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("pwrite \(data.count)", e) }
            written += n
        }
        guard SharedMemory.seal(fd, Seals.fixedSize.union(.write)) else {
            let e = errno; Glibc.close(fd); throw HelperChannel.Failure.system("F_ADD_SEALS", e)
        }
        self.fd = fd; bytes = data.count
    }

    deinit { Glibc.close(fd) }
}

/// A mapping of a memfd the other side passed, checked to be as large as claimed and sealed as
/// it must be (its size fixed; written only by its maker where this side only reads).
struct MappedMemory {
    let base: UnsafeMutableRawPointer
    let bytes: Int

    init(fd: Int32, atLeast needed: Int, writable: Bool) throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HelperChannel.Failure.system("fstat", errno) }
        guard info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) >= needed, needed >= 0 else {
            throw HelperChannel.Failure.protocolError("a shared buffer of \(info.st_size) bytes where \(needed) are needed")
        }
        let required = writable ? Seals.fixedSize : Seals.fixedSize.union(.write)
        guard let seals = Seals.of(fd), seals.isSuperset(of: required) else {
            throw HelperChannel.Failure.protocolError("a shared buffer sealed \(Seals.of(fd).map { "\($0)" } ?? "not at all") where \(required) are needed")
        }
        let length = max(Int(info.st_size), 1)
        let (prot, flags) = writable ? (PROT_READ | PROT_WRITE, MAP_SHARED) : (PROT_READ, MAP_PRIVATE)
        guard let p = mmap(nil, length, prot, flags, fd, 0), p != MAP_FAILED else {
            throw HelperChannel.Failure.system("mmap", errno)
        }
        base = p; bytes = length
    }

    func unmap() { munmap(base, bytes) }
}
