// SPDX-License-Identifier: Apache-2.0
import CLinux
import Foundation
import Glibc
import InkPDFHelper
import InkTestSupport
import InkWorksheet

extension Fixtures {
    /// The PDF helper as the kiosk starts it, from the `inkkiosk` built with these tests.
    public static var pdfHelperLaunch: PDFHelper.Launch {
        var launch = PDFHelper.Launch(executable: inkkioskBinary)
        launch.requireSeccomp = !emulated
        return launch
    }
    /// One helper for the tests that do not look at it (its requests are one at a time).
    public static let pdfHelper = PDFHelper(launch: pdfHelperLaunch)
}

extension Worksheet {
    /// Opened in the tests' shared PDF helper.
    public convenience init(path: String, limits: Limits = Limits(), watch: PopplerWatch? = nil) throws {
        try self.init(path: path, limits: limits, watch: watch, helper: Fixtures.pdfHelper)
    }
}

/// What a poppler bug does to the helper, done to it from outside at the moment it matters.
public enum HelperFault {
    /// Sends `signal` to `helper` while it works on the next `op` (stopped first, so that the
    /// signal lands inside that request, not before or after it). `wait()` once the request returned.
    public static func during(_ helper: PDFHelper, _ op: HelperRequest.Op, signal: Int32) -> Pending {
        let done = DispatchSemaphore(value: 0)
        let pending = Pending(done: done)
        _ = try? helper.peakKiB()   // one running (started if none is)
        guard let pid = helper.pid else { pending.failure = "no helper running"; done.signal(); return pending }
        kill(pid, SIGSTOP)
        Thread.detachNewThread {
            let deadline = ProcessInfo.processInfo.systemUptime + 20
            while helper.waitingFor != op && ProcessInfo.processInfo.systemUptime < deadline { usleep(1000) }
            if helper.waitingFor != op { pending.failure = "the helper was never asked for \(op)" }
            // To the thread that serves requests (the helper's main one), as a fault in poppler
            // lands: a signal to the process may go to any thread, and under qemu-user one that
            // sleeps in a call qemu cannot interrupt never passes it on.
            ik_tgkill(pid, pid, signal)
            kill(pid, SIGCONT)
            done.signal()
        }
        return pending
    }

    public final class Pending: @unchecked Sendable {
        let done: DispatchSemaphore
        var failure: String?
        init(done: DispatchSemaphore) { self.done = done }
        public func wait() throws {
            done.wait()
            if let failure { throw WorksheetMakingFailed(what: failure) }
        }
    }

    /// A crash of the helper on `page` of `path` as the watch is told of it.
    public static func strike(_ watch: PopplerWatch, _ path: String, page: Int) {
        _ = try? watch.around(path, page: page) { () throws -> Int in throw PDFHelper.Failure.crashed(signal: SIGSEGV, status: nil) }
    }
}

