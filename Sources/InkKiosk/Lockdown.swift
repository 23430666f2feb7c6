// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import Logging
import InkCore
import InkInput
import InkLoop

/// Kiosk lockdown: no key may leave the kiosk or reach a console. The console's K_OFF keyboard
/// mode keeps the VT from acting on keys (Ctrl-Alt-Fn, Ctrl-Alt-Del, Ctrl-C), but SysRq is an
/// input handler of its own, and without a VT (or with its keyboard turned back on) nothing
/// stops the rest. So the seat takes every input device exclusively (EVIOCGRAB,
/// `LibinputSeat(exclusive:)`): no kernel handler sees a key. SysRq is also turned off, for the
/// moments no kiosk holds the keyboards (boot, restarts). Only the service keys stop the kiosk.
enum Lockdown {
    static let sysrqPath = "/proc/sys/kernel/sysrq"

    /// Turns SysRq off (when locked down) and says what is locked, once the seat has its devices.
    static func engage(_ options: KioskOptions, seat: LibinputSeat, log: Logger) {
        let service = options.serviceKeys.map { "service keys \($0) stop the kiosk" } ?? "no service keys"
        guard options.lockdown else {
            log.notice("lockdown off: keys reach the kernel's handlers (SysRq always, the VT's when its keyboard is on); \(service)")
            return
        }
        turnOffSysRq(log: log)
        let held = seat.exclusiveNodes.count
        log.info("lockdown: \(held) event node\(held == 1 ? "" : "s") held exclusively; \(service)")
    }

    /// Writes 0 to kernel.sysrq if this process may (root without ProtectKernelTunables=);
    /// otherwise says so and carries on: deploy/sysctl.d/50-inkkiosk.conf does it at boot.
    static func turnOffSysRq(path: String = sysrqPath, log: Logger) {
        let before = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingSpacesAndNewlines()
        guard before != "0" else { return }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        let written = fd >= 0 && write(fd, "0\n", 2) == 2
        let reason = Errno.describe(errno)
        if fd >= 0 { close(fd) }
        if written {
            log.info("lockdown: SysRq turned off (kernel.sysrq was \(before ?? "unknown"))")
        } else {
            log.warning("lockdown: cannot turn SysRq off here (\(path): \(reason)); deploy/sysctl.d/50-inkkiosk.conf turns it off at boot")
        }
    }
}
