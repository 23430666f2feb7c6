// SPDX-License-Identifier: Apache-2.0
import CCage
import FoundationEssentials
import Glibc
import InkCore

/// What the PDF helper may do, set up before it reads a byte of a PDF: poppler has run on
/// crafted files before, so the process that runs it is assumed taken over, and kept from
/// the kiosk's screen, input devices, network, saved work and other processes, and from
/// signalling or starving the kiosk.
///
/// - descriptors: only its channel to the kiosk (3) and stdio (stdin/stdout /dev/null); nice 10;
/// - a user of its own (`user`, 65534 unless configured) when started as root, as the appliance's kiosk is;
/// - rlimits: address space, CPU time, file size (SIGXFSZ ignored: a write past it fails with EFBIG),
///   no core files, few descriptors;
/// - `no_new_privs`, not dumpable (no ptrace by the same user, no core);
/// - Landlock (Linux 5.13+): files readable only below the font and poppler data folders,
///   nothing writable or creatable anywhere (what it writes goes to a descriptor the kiosk opened).
///   A kernel without it: the helper runs only as a user of its own, or where the config allows it;
///   else it refuses to start (`Refusal`) and PDFs are not opened;
/// - seccomp (libseccomp): an allow-list of system calls; creating processes or sockets,
///   executing, tracing or mapping memory executable kill it; fcntl only for commands that
///   cannot make a descriptor signal anyone (no F_SETOWN, F_SETSIG, O_ASYNC, leases, dnotify);
///   anything else unlisted (ioctl among them: FIOASYNC, FIOSETOWN) fails with EPERM.
public struct Cage: Sendable {
    public var memoryMB: Int
    public var cpuSeconds: Int
    /// RLIMIT_FSIZE: the largest file it may write (a Save's annotated PDF), MiB.
    public var fileMB: Int
    /// Who it becomes when started as root.
    public var user: HelperUser
    /// Whether it runs where the kernel has no Landlock and it cannot become a user of its own.
    public var withoutLandlock: WithoutLandlock
    /// Tests only: act as if the kernel had no Landlock (`pdf-helper --test-without-landlock`).
    public var pretendNoLandlock: Bool
    /// false: a system that refuses seccomp filters (user-mode emulation) runs without one, and says so.
    public var requireSeccomp: Bool
    public init(memoryMB: Int, cpuSeconds: Int, fileMB: Int = 256, user: HelperUser = .nobody,
                withoutLandlock: WithoutLandlock = .refuse, pretendNoLandlock: Bool = false, requireSeccomp: Bool = true) {
        self.memoryMB = memoryMB; self.cpuSeconds = cpuSeconds; self.fileMB = fileMB; self.user = user
        self.withoutLandlock = withoutLandlock; self.pretendNoLandlock = pretendNoLandlock; self.requireSeccomp = requireSeccomp
    }

    /// Folders the helper may read below (fontconfig's files and the fonts, poppler's CMaps).
    static let readable = ["/etc/fonts", "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig",
                           "/var/cache/fontconfig", "/usr/share/poppler"]

    public struct Failure: Error, CustomStringConvertible {
        public let step: String
        public let code: Int32
        public var description: String { "\(step): \(Errno.describe(code))" }
    }

    /// The helper will not run: no Landlock, and it would have the kiosk's own file access.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Enters the cage, for good: what it holds to (seccomp, Landlock's ABI or why there is none,
    /// the user it runs as, its limits).
    public func enter() throws -> String {
        ik_close_from(4)
        // Background work, as the kiosk's other (nice 10): the ink's thread comes first.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        // A write past RLIMIT_FSIZE fails (EFBIG, said in the answer) instead of killing the helper.
        signal(SIGXFSZ, SIG_IGN)
        // Before PR_SET_DUMPABLE below: a change of user makes the process dumpable again.
        let identity = try becomeOwnUser()
        func limit(_ resource: Int32, _ soft: UInt64, _ hard: UInt64, _ name: String) throws {
            var l = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
            guard setrlimit(__rlimit_resource_t(UInt32(resource)), &l) == 0 else { throw Failure(step: "setrlimit \(name)", code: errno) }
        }
        try limit(Int32(RLIMIT_AS.rawValue), UInt64(memoryMB) << 20, UInt64(memoryMB) << 20, "RLIMIT_AS")
        // Soft then hard: SIGXCPU first, SIGKILL a few seconds later.
        try limit(Int32(RLIMIT_CPU.rawValue), UInt64(cpuSeconds), UInt64(cpuSeconds + 5), "RLIMIT_CPU")
        try limit(Int32(RLIMIT_FSIZE.rawValue), UInt64(fileMB) << 20, UInt64(fileMB) << 20, "RLIMIT_FSIZE")
        try limit(Int32(RLIMIT_CORE.rawValue), 0, 0, "RLIMIT_CORE")
        try limit(Int32(RLIMIT_NOFILE.rawValue), 64, 64, "RLIMIT_NOFILE")
        guard ik_set_dumpable(0) == 0 else { throw Failure(step: "PR_SET_DUMPABLE", code: errno) }
        guard ik_no_new_privs() == 0 else { throw Failure(step: "PR_SET_NO_NEW_PRIVS", code: errno) }
        let landlock = try restrictFiles(identity: identity)
        var seccomp = "seccomp on"
        do { try filterSystemCalls() } catch let f as Failure where !requireSeccomp {
            seccomp = "NO seccomp (\(f))"
        }
        return "\(seccomp), \(landlock), \(identity.text), \(memoryMB) MiB address space, \(cpuSeconds) s CPU, \(fileMB) MiB files"
    }

    /// Who the helper runs as, and whether that is a user of its own.
    struct Identity {
        let uid: uid_t
        let gid: gid_t
        /// Started as root and now `Cage.user`: none of the kiosk's files are its.
        let ownUser: Bool
        var text: String {
            ownUser ? "running as uid \(uid) gid \(gid) (started as root)" : "running as uid \(uid) gid \(gid) (the kiosk's user)"
        }
    }

    /// Started as root (the appliance's kiosk is PID 1): becomes `user`, with no supplementary
    /// groups, for good. Else it stays the kiosk's user (it cannot become another).
    private func becomeOwnUser() throws -> Identity {
        guard geteuid() == 0 || getuid() == 0 else { return Identity(uid: geteuid(), gid: getegid(), ownUser: false) }
        var step: Int32 = 0
        guard ik_become(user.uid, user.gid, &step) == 0 else {
            let steps = [1: "setgroups", 2: "setresgid \(user.gid)", 3: "setresuid \(user.uid)", 4: "root given up for good"]
            throw Failure(step: steps[Int(step)] ?? "becoming \(user)", code: errno)
        }
        return Identity(uid: geteuid(), gid: getegid(), ownUser: true)
    }

    /// Landlock: read below `readable`, nothing else. An older kernel, or one without it, leaves
    /// the files as the user's rights allow: acceptable for a user of its own, or where the
    /// config says so; else the helper refuses to run.
    private func restrictFiles(identity: Identity) throws -> String {
        let abi = pretendNoLandlock ? -1 : ik_landlock_abi()
        if abi < 1 {
            let why = pretendNoLandlock ? "no Landlock (a test acts as if the kernel had none)" : "no Landlock (\(Errno.describe(errno)))"
            if identity.ownUser { return why }
            guard withoutLandlock == .allow else {
                throw Refusal(description: "\(why) and the PDF reader would run as the kiosk's own user (uid \(identity.uid)), "
                              + "able to read what the kiosk can: PDFs are not opened ([pdf_helper] without_landlock = \"allow\" "
                              + "runs it all the same; a kiosk started as root gives it a user of its own)")
            }
            return "\(why), allowed by [pdf_helper] without_landlock"
        }
        // Every right this ABI knows is handled (so denied unless allowed below): 13 rights in
        // ABI 1, REFER in 2, TRUNCATE in 3, IOCTL_DEV in 5 (4 and 6 add network and IPC scopes).
        let known: UInt64 = abi >= 5 ? (1 << 16) - 1 : abi >= 3 ? (1 << 15) - 1 : abi == 2 ? (1 << 14) - 1 : (1 << 13) - 1
        let ruleset = ik_landlock_ruleset(known)
        guard ruleset >= 0 else { throw Failure(step: "landlock_create_ruleset", code: errno) }
        defer { Glibc.close(ruleset) }
        let readFile: UInt64 = 1 << 2, readDir: UInt64 = 1 << 3
        for folder in Self.readable {
            let dir = ik_open_folder(folder)
            guard dir >= 0 else { continue }   // not on this system
            defer { Glibc.close(dir) }
            guard ik_landlock_allow_beneath(ruleset, dir, readFile | readDir) == 0 else {
                throw Failure(step: "landlock_add_rule \(folder)", code: errno)
            }
        }
        guard ik_landlock_restrict(ruleset) == 0 else { throw Failure(step: "landlock_restrict_self", code: errno) }
        return "Landlock ABI \(abi)"
    }

    /// System calls the helper makes drawing and writing PDFs (glibc, poppler, cairo, fontconfig,
    /// FreeType, the Swift runtime); a name this architecture lacks is skipped.
    static let allowed = [
        "read", "write", "readv", "writev", "pread64", "lseek", "close", "fstat", "newfstatat", "fstatat64", "statx", "stat",
        "lstat", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents64", "getcwd", "statfs", "fstatfs",
        "dup", "dup3", "brk", "munmap", "mremap", "madvise", "futex", "set_robust_list", "rseq",
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "exit", "exit_group", "getpid", "gettid",
        "getppid", "getuid", "geteuid", "getgid", "getegid", "clock_gettime", "clock_getres", "gettimeofday",
        "nanosleep", "clock_nanosleep", "getrandom", "sched_yield", "sched_getaffinity", "uname", "sysinfo", "getrusage",
        "times", "sendmsg", "recvmsg", "poll", "ppoll", "msync",
    ]
    /// Taken as an attack: the helper is killed at once (SIGSYS) instead of getting an error.
    static let fatal = [
        "execve", "execveat", "fork", "vfork", "clone", "clone3", "socket", "socketpair", "connect", "bind", "listen",
        "accept", "accept4", "ptrace", "process_vm_readv", "process_vm_writev", "kill", "tkill", "mount", "umount2",
        "setns", "unshare", "pivot_root", "chroot", "init_module", "finit_module", "kexec_load", "bpf", "perf_event_open",
        "keyctl", "add_key", "request_key", "userfaultfd", "io_uring_setup", "memfd_create", "mknod", "mknodat",
        "symlink", "symlinkat", "link", "linkat", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    ]

    /// fcntl's commands that neither signal nor wait on anyone (glibc, poppler and fontconfig use
    /// F_GETFL and F_SETFD; the rest cost nothing). F_SETFL is allowed without O_ASYNC.
    static let harmlessFcntl: [Int32] = [F_DUPFD, IK_F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, IK_F_GET_SEALS]

    private func filterSystemCalls() throws {
        guard let filter = seccomp_init(ik_seccomp_errno(EPERM)) else { throw Failure(step: "seccomp_init", code: ENOMEM) }
        defer { seccomp_release(filter) }
        func number(_ name: String) -> Int32? {
            let n = seccomp_syscall_resolve_name(name)
            return n == __NR_SCMP_ERROR ? nil : n
        }
        func add(_ step: String, _ rc: Int32) throws { if rc != 0 { throw Failure(step: "seccomp rule for \(step)", code: -rc) } }
        for name in Self.allowed { if let n = number(name) { try add(name, ik_seccomp_rule(filter, ik_seccomp_allow(), n)) } }
        for name in Self.fatal { if let n = number(name) { try add(name, ik_seccomp_rule(filter, ik_seccomp_kill(), n)) } }
        // Files: read-only opens (Landlock says where); no new file, no write access, no truncation.
        let openFlags = UInt64(O_ACCMODE | O_CREAT | O_TRUNC)
        if let n = number("openat") { try add("openat", ik_seccomp_rule_masked(filter, ik_seccomp_allow(), n, 2, openFlags, UInt64(O_RDONLY))) }
        if let n = number("open") { try add("open", ik_seccomp_rule_masked(filter, ik_seccomp_allow(), n, 1, openFlags, UInt64(O_RDONLY))) }
        // Memory, never executable: poppler and its libraries were loaded before the cage closed.
        let exec = UInt64(PROT_EXEC)
        for name in ["mmap", "mmap2", "mprotect"] {
            if let n = number(name) { try add(name, ik_seccomp_rule_masked(filter, ik_seccomp_allow(), n, 2, exec, 0)) }
        }
        // fcntl: descriptor flags, status flags, copies, seals read; nothing that makes a descriptor
        // signal a process (F_SETOWN(_EX), F_SETSIG, O_ASYNC: SIGIO on the socket it shares with the
        // kiosk), holds the kiosk up (leases, locks) or watches folders (F_NOTIFY). ioctl is not
        // allowed at all (FIOASYNC, FIOSETOWN do what O_ASYNC and F_SETOWN do).
        for name in ["fcntl", "fcntl64"] {
            guard let n = number(name) else { continue }
            for command in Self.harmlessFcntl {
                try add("\(name) \(command)", ik_seccomp_rule_equal(filter, ik_seccomp_allow(), n, 1, UInt64(command)))
            }
            try add("\(name) F_SETFL", ik_seccomp_rule_equal_masked(filter, ik_seccomp_allow(), n, 1, UInt64(F_SETFL),
                                                                      2, UInt64(IK_O_ASYNC), 0))
        }
        // Signals to itself only (abort, raise): never to the kiosk or anyone else.
        if let n = number("tgkill") { try add("tgkill", ik_seccomp_rule_equal(filter, ik_seccomp_allow(), n, 0, UInt64(getpid()))) }
        // Its limits may be read, not changed.
        if let n = number("prlimit64") { try add("prlimit64", ik_seccomp_rule_equal(filter, ik_seccomp_allow(), n, 2, 0)) }
        // Every thread (glibc's or a library's), not only this one.
        try add("every thread", ik_seccomp_all_threads(filter))
        let rc = seccomp_load(filter)
        guard rc == 0 else { throw Failure(step: "seccomp_load", code: -rc) }
    }
}

/// The user the helper becomes when it is started as root (`[pdf_helper] uid`, `gid`): one that
/// owns none of the kiosk's files. Fonts are world-readable, and the PDF comes as a descriptor.
public struct HelperUser: Sendable, Equatable, CustomStringConvertible {
    public var uid: uid_t
    public var gid: gid_t
    public init(uid: uid_t, gid: gid_t) { self.uid = uid; self.gid = gid }
    /// Debian's nobody and nogroup, which own nothing.
    public static let nobody = HelperUser(uid: 65534, gid: 65534)
    public var description: String { "uid \(uid) gid \(gid)" }
}

/// Whether the helper runs where the kernel has no Landlock and it would run as the kiosk's
/// own user (`[pdf_helper] without_landlock`).
public enum WithoutLandlock: String, Sendable, CaseIterable {
    /// It does not start; worksheets and documents cannot be opened, and the screen says why.
    case refuse
    /// It runs with seccomp only, able to read what the kiosk can.
    case allow
}
