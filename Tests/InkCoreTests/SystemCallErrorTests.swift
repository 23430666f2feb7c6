// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore
import Testing

@Suite struct SystemCallErrors {
    /// The errno is the failing call's, whatever runs between the call and the report.
    @Test func theErrnoIsTheFailingCallsEvenAfterOtherCalls() throws {
        let missing = "/nonexistent-\(getpid())/journal"
        var caught: SystemCallError?
        do {
            try SystemCallError.check(open(missing, O_RDONLY | O_CLOEXEC), "open", path: missing)
        } catch {
            caught = error
        }
        // Cleanup as a catch block does it: a call that fails otherwise, one that works.
        #expect(close(-1) == -1 && errno == EBADF)
        #expect(getpid() > 0)
        let failure = try #require(caught)
        #expect(failure.errno == ENOENT)
        #expect(failure.description == "cannot open \(missing): No such file or directory (ENOENT)")
        #expect(failure.reason == "No such file or directory")
    }

    @Test func aCallThatWorksGivesItsResult() throws {
        let fd = try SystemCallError.check(open("/dev/null", O_RDONLY | O_CLOEXEC), "open", path: "/dev/null")
        #expect(fd >= 0)
        #expect(try SystemCallError.check(close(fd), "close") == 0)
    }

    @Test func libdrmsNegativeErrnoIsTurnedBack() {
        #expect(throws: SystemCallError("page flip", path: "/dev/dri/card0", errno: EBUSY)) {
            try SystemCallError.check(negated: -EBUSY, "page flip", path: "/dev/dri/card0")
        }
    }

    @Test func theDescriptionSaysWhatOnWhatAndWhy() {
        let sync = SystemCallError("fsync", path: "/var/lib/inkkiosk/journal", errno: EIO)
        #expect(sync.description == "cannot fsync /var/lib/inkkiosk/journal: Input/output error (EIO)")
        let noPath = SystemCallError("epoll_create1", errno: EMFILE)
        #expect(noPath.description == "cannot epoll_create1: Too many open files (EMFILE)")
        let hinted = SystemCallError("open", path: "/dev/dri/card0", errno: EACCES, hint: "root or the 'video' group is needed")
        #expect(hinted.description == "cannot open /dev/dri/card0: Permission denied (EACCES); root or the 'video' group is needed")
    }

    @Test func errnoIsExplainedAndNamed() {
        #expect(Errno.describe(ENOSPC) == "No space left on device (ENOSPC)")
        #expect(Errno.describe(4095).hasSuffix(" (errno 4095)"))
        #expect(Errno.message(EIO) == "Input/output error")
    }
}
