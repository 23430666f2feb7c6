// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore
import Synchronization

/// The kiosk owns its virtual terminal: graphics mode (no console text or cursor over the ink),
/// keyboard off (keystrokes do not reach the tty), and VT switching either locked (kiosk) or
/// handled by signals so the kiosk can let go of the display while away.
/// `restore()` puts everything back; it is also run from fatal-signal handlers, so it only makes
/// async-signal-safe system calls on values saved beforehand.
public final class Console {
    public enum Switching: Sendable { case locked, handled(release: Int32, acquire: Int32) }

    public let fd: Int32
    public let path: String
    private let savedKDMode: Int32
    private let savedKBMode: Int32
    private var savedVTMode = vt_mode()

    /// Takes the VT on `path` (default: stdin if it is a VT, else the active one, /dev/tty0).
    public init(path: String? = nil, switching: Switching) throws {
        let (fd, p) = try Self.open(path)
        self.fd = fd; self.path = p
        var kd: Int32 = 0, kb: Int32 = 0
        guard ik_kd_get_mode(fd, &kd) == 0 else {
            let failure = SystemCallError("read the console mode (KDGETMODE) of", path: p, hint: "it is not a virtual terminal")
            close(fd); throw failure
        }
        _ = ik_kd_get_kb_mode(fd, &kb)
        savedKDMode = kd; savedKBMode = kb
        _ = ik_vt_get_mode(fd, &savedVTMode)
        ConsoleRestore.arm(fd: fd, kdMode: kd, kbMode: kb)

        guard ik_kd_set_mode(fd, Int32(ik_kd_graphics())) == 0 else {
            let failure = SystemCallError("switch to graphics mode (KDSETMODE)", path: p); restore(); throw failure
        }
        _ = ik_kd_set_kb_mode(fd, Int32(ik_kb_off()))
        switch switching {
        case .locked:
            _ = ik_vt_lock_switch(fd)
        case .handled(let release, let acquire):
            var mode = vt_mode()
            mode.mode = .init(truncatingIfNeeded: ik_vt_process())  // C char: signed on x86, unsigned on arm64
            mode.relsig = Int16(release)
            mode.acqsig = Int16(acquire)
            _ = ik_vt_set_mode(fd, &mode)
        }
    }

    deinit {
        restore()
        ConsoleRestore.disarm()   // a crash after this must not write to a number the process may give another file
        close(fd)
    }

    /// Text mode, the keyboard as it was, VT switching back to automatic.
    public func restore() {
        ConsoleRestore.run()
        var mode = savedVTMode
        mode.mode = .init(truncatingIfNeeded: ik_vt_auto())
        _ = ik_vt_set_mode(fd, &mode)
    }

    /// Answers the kernel's VT-switch request: let go (after the caller dropped DRM master).
    public func allowRelease() { _ = ik_vt_release(fd, 1) }
    /// Acknowledges that we have the VT back.
    public func acknowledgeAcquire() { _ = ik_vt_release(fd, Int32(ik_vt_ackacq())) }

    public var isGraphics: Bool {
        var kd: Int32 = 0
        return ik_kd_get_mode(fd, &kd) == 0 && kd == Int32(ik_kd_graphics())
    }

    private static func open(_ path: String?) throws -> (Int32, String) {
        if let path {
            let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw SystemCallError("open", path: path) }
            return (fd, path)
        }
        var kd: Int32 = 0
        if isatty(0) != 0, ik_kd_get_mode(0, &kd) == 0, let name = ttyname(0) {
            let p = String(cString: name)
            let fd = Glibc.open(p, O_RDWR | O_CLOEXEC | O_NOCTTY)
            if fd >= 0 { return (fd, p) }
        }
        let fd = Glibc.open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw SystemCallError("open", path: "/dev/tty0", hint: "run the kiosk on its VT (stdin, as systemd's TTYPath= gives it) or as root")
        }
        return (fd, "/dev/tty0")
    }
}

/// What a crash must undo, kept where a signal handler can reach it without allocating.
enum ConsoleRestore {
    /// The console's descriptor while a `Console` holds it, else -1. Atomic: a crash handler reads
    /// it while the console's owner may be closing it.
    static let armedFD = Atomic<Int32>(-1)
    // Written by `arm` on the thread that takes the console (one per process), before the crash
    // handlers that read them are installed, and before `armedFD` says they are valid.
    nonisolated(unsafe) static var kdMode: Int32 = 0
    nonisolated(unsafe) static var kbMode: Int32 = 0

    /// The crash signals, and what handled them before us (the Swift runtime's backtracer).
    static let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]
    /// Each slot is filled by `arm`'s `sigaction` call that installs the handler reading it; never written again.
    nonisolated(unsafe) static var previous: [sigaction] = Array(repeating: sigaction(), count: 32)

    static func arm(fd: Int32, kdMode: Int32, kbMode: Int32) {
        self.kdMode = kdMode; self.kbMode = kbMode
        armedFD.store(fd, ordering: .releasing)
        installAlternateStack()
        for sig in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                ConsoleRestore.run()
                // Then whoever handled it before (the runtime prints its backtrace), or the default.
                if sig >= 0 && sig < 32 { sigaction(sig, &ConsoleRestore.previous[Int(sig)], nil) } else { signal(sig, SIG_DFL) }
                raise(sig)
            }
            action.sa_flags = Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: SA_RESETHAND) | UInt32(truncatingIfNeeded: SA_ONSTACK))
            sigaction(sig, &action, &previous[Int(sig)])
        }
    }

    /// A stack overflow leaves no stack for a handler: crash handlers run on a stack of their own.
    private static func installAlternateStack() {
        let size = 64 * 1024
        guard let memory = malloc(size) else { return }   // kept for the process's life
        var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
        if sigaltstack(&stack, nil) != 0 { free(memory) }
    }

    /// The descriptor is about to be closed: nothing for a crash to restore through it any more.
    static func disarm() { armedFD.store(-1, ordering: .releasing) }

    /// Async-signal-safe: an atomic load, two ioctls and an unlock.
    static func run() {
        let fd = armedFD.load(ordering: .acquiring)
        guard fd >= 0 else { return }
        _ = ik_kd_set_mode(fd, kdMode == Int32(ik_kd_graphics()) ? Int32(ik_kd_text()) : kdMode)
        _ = ik_kd_set_kb_mode(fd, kbMode)
        _ = ik_vt_unlock_switch(fd)
    }
}
