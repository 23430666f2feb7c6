// SPDX-License-Identifier: Apache-2.0
import CCage
import FoundationEssentials
import Glibc
import InkCore

/// What the cage must stop, one at a time (`inkkiosk pdf-helper --try PROBE`): each says how it
/// was refused, or dies of SIGSYS; "allowed" when the cage let it through.
public enum CageProbe: String, CaseIterable, Sendable {
    case readOutside = "read-outside", writeFile = "write-file", socket, exec, signalParent = "signal-parent", mapExecutable = "map-executable",
         allocate, fcntlSetsig = "fcntl-setsig", fcntlSetown = "fcntl-setown", fcntlAsync = "fcntl-async", ioctlAsync = "ioctl-async",
         fileSize = "file-size", growBuffer = "grow-buffer", shrinkBuffer = "shrink-buffer", user, noLandlock = "no-landlock"

    /// The probed descriptor: what the helper has as its descriptor 3 (its socket to the kiosk; a
    /// file it writes; a page buffer made and sealed as the kiosk makes it), put there before the cage closes.
    static let probed: Int32 = 3

    /// Set once by `prepare`, on the `--try` helper process's only thread, and never read: it only
    /// keeps the buffer's descriptor open for the probe's life.
    nonisolated(unsafe) private static var buffer: SharedMemory?

    public func prepare() throws {
        let fd: Int32
        switch self {
        case .fcntlSetsig, .fcntlSetown, .fcntlAsync, .ioctlAsync:
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0 else { throw SystemCallError("socketpair") }
            fd = pair[1]
        case .fileSize:
            fd = ik_memfd("inkkiosk-probe-file")
            guard fd >= 0 else { throw SystemCallError("memfd_create") }
        case .growBuffer, .shrinkBuffer:
            // Kept for the probe's life: its deinit would close the descriptor (3, if that was free).
            let buffer = try SharedMemory(bytes: 4 * 4096)
            Self.buffer = buffer
            fd = buffer.fd
        default: return
        }
        guard dup2(fd, Self.probed) == Self.probed else { throw SystemCallError("dup2 onto \(Self.probed)") }
    }

    public func attempt(cage: Cage, startedAs: (uid: uid_t, gid: gid_t)) -> String {
        func refused(_ rc: Int) -> String { rc >= 0 ? "allowed" : "refused: \(Errno.describe(errno))" }
        let fd = Self.probed
        switch self {
        case .readOutside:
            // A file that exists on any system (stat is not restricted, opening it is).
            var info = stat()
            let candidates: [String] = ["/etc/passwd", "/init", "/proc/self/status"]
            let file = candidates.first { stat($0, &info) == 0 } ?? "/proc/self/status"
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            defer { if fd >= 0 { close(fd) } }
            return "\(file) " + refused(Int(fd))
        case .writeFile:
            let fd = open("/tmp/inkkiosk-cage-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            defer { if fd >= 0 { close(fd); unlink("/tmp/inkkiosk-cage-probe") } }
            return refused(Int(fd))
        case .socket: return refused(Int(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)))
        case .exec:
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
            return refused(Int(execv("/bin/true", argv)))
        case .signalParent: return refused(Int(kill(getppid(), SIGTERM)))
        case .mapExecutable:
            let p = mmap(nil, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            return p == MAP_FAILED ? refused(-1) : "allowed"
        case .allocate:
            // More than the address space allowed: the mapping (what malloc asks the kernel for a
            // block this big) must fail, not take the board's memory. mmap, not malloc: an
            // optimiser may drop an allocation nothing reads.
            let bytes = 4 << 30
            let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard p == MAP_FAILED else { munmap(p, bytes); return "allowed" }
            return "refused: 4 GiB cannot be mapped: \(Errno.describe(errno))"
        case .fcntlSetsig:
            // SIGIO's replacement: with F_SETOWN, any signal (SIGKILL's neighbours) sent to the owner.
            return refused(Int(ik_fcntl(fd, IK_F_SETSIG, Int(SIGTERM))))
        case .fcntlSetown:
            let plain = ik_fcntl(fd, IK_F_SETOWN, Int(getppid()))
            let plainWhy = plain < 0 ? Errno.describe(errno) : "allowed"
            var owner: [Int32] = [0, getppid()]   // struct f_owner_ex: F_OWNER_TID, the kiosk
            let extended = owner.withUnsafeMutableBytes { ik_fcntl(fd, IK_F_SETOWN_EX, Int(bitPattern: $0.baseAddress)) }
            let extendedWhy = extended < 0 ? Errno.describe(errno) : "allowed"
            return plain >= 0 || extended >= 0 ? "allowed: F_SETOWN \(plainWhy), F_SETOWN_EX \(extendedWhy)"
                : "refused: F_SETOWN: \(plainWhy); F_SETOWN_EX: \(extendedWhy)"
        case .fcntlAsync:
            let flags = ik_fcntl(fd, F_GETFL, 0)
            let async = ik_fcntl(fd, F_SETFL, Int(flags | IK_O_ASYNC))
            guard async < 0 else { return "allowed" }
            let why = Errno.describe(errno)
            // The same command without O_ASYNC stays allowed: the filter looks at the flags.
            let plain = ik_fcntl(fd, F_SETFL, Int(flags | O_NONBLOCK))
            return "refused: \(why) (F_SETFL without O_ASYNC: \(plain == 0 ? "allowed" : Errno.describe(errno)))"
        case .ioctlAsync:
            var on: Int32 = 1, owner = getppid()
            let async = ik_ioctl_int(fd, UInt(IK_FIOASYNC), &on)
            let asyncWhy = async < 0 ? Errno.describe(errno) : "allowed"
            let own = ik_ioctl_int(fd, UInt(IK_FIOSETOWN), &owner)
            let ownWhy = own < 0 ? Errno.describe(errno) : "allowed"
            return async >= 0 || own >= 0 ? "allowed: FIOASYNC \(asyncWhy), FIOSETOWN \(ownWhy)"
                : "refused: FIOASYNC: \(asyncWhy); FIOSETOWN: \(ownWhy)"
        case .fileSize:
            // A file the kiosk opened, written up to the limit and one byte past it.
            let limit = off_t(cage.fileMB) << 20
            var byte: UInt8 = 0x25
            guard lseek(fd, limit - 1, SEEK_SET) == limit - 1, write(fd, &byte, 1) == 1 else {
                return "the last byte below \(cage.fileMB) MiB could not be written: \(Errno.describe(errno))"
            }
            guard write(fd, &byte, 1) < 0 else { return "allowed: a byte past \(cage.fileMB) MiB written" }
            return "refused past \(cage.fileMB) MiB: \(Errno.describe(errno)) (no SIGXFSZ; the byte below written)"
        case .growBuffer:
            let seals = Seals.of(fd).map { "\($0)" } ?? "unreadable: \(Errno.describe(errno))"
            var byte: UInt8 = 1
            guard lseek(fd, 0, SEEK_END) >= 0 else { return "cannot seek: \(Errno.describe(errno))" }
            return "\(refused(write(fd, &byte, 1))) (sealed: \(seals))"
        case .shrinkBuffer:
            let seals = Seals.of(fd).map { "\($0)" } ?? "unreadable: \(Errno.describe(errno))"
            return "\(refused(Int(ftruncate(fd, 0)))) (sealed: \(seals))"
        case .user, .noLandlock:
            let now = "uid \(getuid()) gid \(getgid()) (euid \(geteuid()) egid \(getegid()))"
            let root = getuid() == 0 || geteuid() == 0 || getgid() == 0 || getegid() == 0
            let kiosks = getuid() == startedAs.uid
            switch self {
            case .user:
                return root ? "allowed: running as root, \(now)"
                    : "refused root: running as \(now)" + (kiosks ? ", the kiosk's user" : ", started as uid \(startedAs.uid) gid \(startedAs.gid)")
            default:
                if root || kiosks { return "allowed: no Landlock, running as \(now), the kiosk's user" }
                return "refused the kiosk's files: no Landlock, so running as \(now), started as uid \(startedAs.uid) gid \(startedAs.gid)"
            }
        }
    }
}
