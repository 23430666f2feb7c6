// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
import InkCore
@testable import InkDisplay

@Suite struct Recovery {
    @Test func theFirstFrameIsAModeSetThenFlips() {
        var r = ScanoutRecovery()
        #expect(r.step(now: 0) == .modeSet)
        r.modeSetSucceeded()
        #expect(r.step(now: 0) == .flip && !r.retryDue(now: 0))
        r.flipRequested(at: 1)
        #expect(r.flipPending && r.deadline() == 1 + r.settings.flipTimeout)
        r.flipCompleted()
        #expect(!r.flipPending && r.deadline() == nil)
    }

    @Test func aFailedFlipIsRetriedNextRefreshAndAfterThreeAModeSetIsTried() {
        var r = ScanoutRecovery()
        r.modeSetSucceeded()
        let first = r.flipFailed(at: 10)
        #expect(!first)
        #expect(r.step(now: 10) == .wait && !r.retryDue(now: 10), "not in the same instant: no busy loop")
        #expect(r.retryDue(now: 10.02) && r.step(now: 10.02) == .flip, "retried on the next refresh without new input")
        let second = r.flipFailed(at: 10.02), third = r.flipFailed(at: 10.04)
        #expect(!second)
        #expect(third, "the third failure in a row asks for a mode set")
        #expect(r.step(now: 10.06) == .modeSet)
        r.modeSetSucceeded()
        #expect(r.step(now: 10.06) == .flip && r.consecutiveFlipFailures == 0)
    }

    @Test func aSuccessfulFlipStartsTheCountAgain() {
        var r = ScanoutRecovery()
        r.modeSetSucceeded()
        _ = r.flipFailed(at: 0); _ = r.flipFailed(at: 1)
        r.flipRequested(at: 2); r.flipCompleted()
        let forced = r.flipFailed(at: 3)
        #expect(!forced && r.step(now: 4) == .flip)
    }

    @Test func failedModeSetsBackOffDoublingUpToTheLimit() {
        var r = ScanoutRecovery()
        let delays = (0..<9).map { _ in r.modeSetFailed(at: 100) }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5, 5])
        #expect(r.step(now: 104.9) == .wait && r.step(now: 105) == .modeSet && r.deadline() == 105)
        r.requireModeSet(now: 101)   // the screen plugged back: at once
        #expect(r.step(now: 101) == .modeSet && r.modeSetFailures == 0)
    }

    @Test func aFlipThatNeverCompletesIsGivenUpAndAModeSetFollows() {
        var r = ScanoutRecovery()
        r.modeSetSucceeded()
        r.flipRequested(at: 5)
        let early = r.flipTimedOut(at: 5.4)
        #expect(!early && r.flipPending)
        let late = r.flipTimedOut(at: 5.5)
        #expect(late && !r.flipPending)
        #expect(r.retryDue(now: 5.5) && r.step(now: 5.5) == .modeSet)
    }

    @Test func anUnpluggedScreenWaitsForNothing() {
        var r = ScanoutRecovery()
        r.modeSetSucceeded()
        r.flipRequested(at: 1)
        r.screenGone()
        #expect(!r.flipPending && r.deadline() == nil && !r.retryDue(now: 2))
    }
}

@Suite struct FailureLines {
    @Test func oneLinePerErrnoThenACountNowAndThenAndOneWhenItWorksAgain() {
        var log = FailureLog(interval: 10)
        let firstLine = log.failed("page flip on HDMI-A-1", errno: EBUSY, now: 0)
        #expect(firstLine == "page flip on HDMI-A-1 failed: Device or resource busy (EBUSY)")
        let repeats = (1..<600).compactMap { log.failed("page flip on HDMI-A-1", errno: EBUSY, now: Double($0) / 60) }
        #expect(repeats.isEmpty, "60 Hz of the same failure for 10 s: no new line")
        let line1 = log.failed("page flip on HDMI-A-1", errno: EACCES, now: 10)
        #expect(line1?.contains("Permission denied (EACCES) (failure 601 in a row)") == true)
        let line2 = log.failed("page flip on HDMI-A-1", errno: EBUSY, now: 15)
        #expect(line2 == nil)
        let line3 = log.failed("page flip on HDMI-A-1", errno: EBUSY, now: 20)
        #expect(line3?.hasPrefix("page flip on HDMI-A-1 still failing: 2 more failures in 10 s") == true)
        let line4 = log.failed("mode set", errno: EBUSY, now: 21)
        #expect(line4 != nil, "another call has its own run")
        let line5 = log.succeeded("page flip on HDMI-A-1", now: 22)
        #expect(line5 == "page flip on HDMI-A-1 works again after 603 failures over 22.00 s")
        let line6 = log.succeeded("page flip on HDMI-A-1", now: 23)
        #expect(line6 == nil, "working all along: nothing to say")
        let line7 = log.failed("page flip on HDMI-A-1", errno: EBUSY, now: 24)
        #expect(line7 != nil, "a new run of failures is told again")
    }

    /// The errno the failing call left is the one logged, though later calls (the failed
    /// allocation's cleanup) changed the global errno since.
    @Test func aRunIsKeyedOnTheErrnoCapturedAtTheCall() {
        var log = FailureLog()
        let failure = SystemCallError("create a dumb buffer", errno: ENOMEM)
        errno = EBADF
        let first = log.failed("mode set", error: failure, now: 0)
        #expect(first == "mode set failed: Cannot allocate memory (ENOMEM)")
        errno = EINVAL
        #expect(log.failed("mode set", error: failure, now: 1) == nil, "the same errno again: nothing new to say")
        let other = log.failed("mode set", error: SystemCallError("create a dumb buffer", errno: ENOSPC), now: 2)
        #expect(other == "mode set failed: No space left on device (ENOSPC) (failure 3 in a row)")
    }
}
