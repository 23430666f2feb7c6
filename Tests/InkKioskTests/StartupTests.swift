// SPDX-License-Identifier: Apache-2.0
import Testing
import Glibc
import InkCore
import InkLoop
@testable import InkKiosk

@Suite struct Startup {
    @Test func theTraceNamesEveryStepInOrderFromTheExec() throws {
        var trace = StartupTrace()
        usleep(20_000)
        trace.mark("display")
        trace.mark("journal")
        let line = trace.summary("first frame on screen", lastStep: "first frame")
        // A test runner is not PID 1: the kernel's start time of this process is the origin.
        #expect(line.hasPrefix("first frame on screen "))
        #expect(line.contains(" ms after exec: loader and arguments "))
        let tail = try #require(line.split(separator: ": ", maxSplits: 1).last)
        let steps = tail.split(separator: ", ").map { $0.split(separator: " ") }
        #expect(steps.map { $0.dropLast(2).joined(separator: " ") } == ["loader and arguments", "display", "journal", "first frame"])
        #expect(steps.allSatisfy { $0.last == "ms" && Int($0[$0.count - 2]) != nil })
        // The display step took the 20 ms slept before it.
        let display = try #require(steps.first { $0.first == "display" })
        #expect(Int(display[1])! >= 19)
        #expect(!line.contains("-"))
    }

    @Test func whatFollowsTheLastStepSaysHowLongAfterIt() throws {
        var trace = StartupTrace()
        trace.mark("first frame")
        usleep(20_000)
        let line = trace.followUp("input ready")
        // "input ready 412 ms after exec, 21 ms after the first frame"
        let words = line.split(separator: " ")
        #expect(line.hasPrefix("input ready ") && line.hasSuffix(" ms after the first frame"))
        #expect(words[3...5] == ["ms", "after", "exec,"])
        let sinceStart = try #require(Int(words[2])), sinceStep = try #require(Int(words[6]))
        #expect(sinceStep >= 19 && sinceStart >= sinceStep)
    }

    @Test func theProcessStartIsReadFromTheKernel() throws {
        let start = try #require(StartupTrace.processStart())
        let now = StartupTrace.bootTime()
        #expect(start <= now + 0.01)
        #expect(start > 0)
    }

    @Test func aValueMadeElsewhereReachesTheTakerAndSoDoesItsError() throws {
        struct Refused: Error {}
        let made = StartedElsewhere(name: "test-made") { [1, 2, 3] }
        #expect(try made.take() == [1, 2, 3])
        let failed = StartedElsewhere<Int>(name: "test-failed") { throw Refused() }
        #expect(throws: Refused.self) { try failed.take() }
    }

    /// The seat's opening knocks on an eventfd when it is done: the loop goes on meanwhile and
    /// takes the seat when the knock comes, without waiting, whether it was made or failed.
    @Test func aValueMadeElsewhereKnocksWhenItCanBeTakenWithoutWaiting() throws {
        struct Refused: Error {}
        let gate = Condition()
        var open = false
        let knock = try WakeSignal()
        let made = StartedElsewhere(name: "test-knock", made: { knock.signal() }) { () -> String in
            gate.lock(); while !open { gate.wait() }; gate.unlock()
            return "seat"
        }
        var ready = pollfd(fd: knock.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 50) == 0, "no knock before the value is made")
        gate.lock(); open = true; gate.signal(); gate.unlock()
        #expect(poll(&ready, 1, 10_000) == 1, "the knock once it is made")
        #expect(try made.take() == "seat")
        let failing = try WakeSignal()
        let failed = StartedElsewhere<Int>(name: "test-knock-failed", made: { failing.signal() }) { throw Refused() }
        var failedReady = pollfd(fd: failing.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&failedReady, 1, 10_000) == 1, "a failure knocks too")
        #expect(throws: Refused.self) { try failed.take() }
    }
}
