// SPDX-License-Identifier: Apache-2.0
import Testing
import InkHTTPClient
@testable import InkUpdateAgent

struct ScheduleAndWindowTests {
    let schedule = PollSchedule(pollInterval: 300, backoffMax: 3600)

    @Test func theServersSleepWinsWithinBounds() {
        // random 0.5: no jitter either way.
        #expect(schedule.afterAnswer(serverSleep: 60, random: 0.5) == 60)
        #expect(schedule.afterAnswer(serverSleep: nil, random: 0.5) == 300)
        #expect(schedule.afterAnswer(serverSleep: 0, random: 0.5) == 5)
        #expect(schedule.afterAnswer(serverSleep: 7 * 86_400, random: 0.5) == 86_400)
        #expect(schedule.afterAnswer(serverSleep: 100, random: 0) == 90)
        #expect(schedule.afterAnswer(serverSleep: 100, random: 0.999_999) > 109.99)
    }

    @Test func failuresDoubleTheWaitUpToTheMaximumWithJitterBelowIt() {
        let full = (1...12).map { schedule.afterFailure($0, random: 0.999_999_999) }
        #expect(full.map { Int($0.rounded()) } == [15, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600, 3600])
        #expect(schedule.afterFailure(3, random: 0) == 30)
        #expect(schedule.afterFailure(1_000_000, random: 0.5) == 2700)
    }

    @Test func aWindowWithinADay() throws {
        let w = try RebootWindow("02:00-05:00")
        #expect(w.contains(minute: 120) && w.contains(minute: 299))
        #expect(!w.contains(minute: 300) && !w.contains(minute: 119))
        #expect(w.secondsUntilOpen(secondOfDay: 2 * 3600 + 5) == 0)
        #expect(w.secondsUntilOpen(secondOfDay: 3600) == 3600)
        #expect(w.secondsUntilOpen(secondOfDay: 23 * 3600) == 3 * 3600)
        #expect(w.description == "02:00-05:00")
    }

    @Test func aWindowOverMidnight() throws {
        let w = try RebootWindow("22:30-01:00")
        #expect(w.contains(minute: 22 * 60 + 30) && w.contains(minute: 0) && w.contains(minute: 59))
        #expect(!w.contains(minute: 60) && !w.contains(minute: 22 * 60 + 29))
        #expect(w.secondsUntilOpen(secondOfDay: 12 * 3600) == 10 * 3600 + 1800)
    }

    @Test func aWindowThatIsNotOneSaysSo() {
        for bad in ["", "2:00-5:00", "02:00", "02:00-24:00", "02:60-03:00", "02:00-02:00", "02:00-03:00-04:00", "ab:cd-ef:gh"] {
            #expect(throws: RebootWindow.Problem.self, "\(bad)") { try RebootWindow(bad) }
        }
        #expect(throws: RebootWindow.Problem(description: "\"02:00-02:00\" is an empty window: its start and end are the same")) {
            try RebootWindow("02:00-02:00")
        }
    }
}
