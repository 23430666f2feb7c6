// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkInput

@Suite struct RecentLinesTests {
    @Test func keepsEverythingUpToTheLimit() {
        var r = RecentLines(limit: 3)
        r.append("a"); r.append("b")
        #expect(r.lines == ["a", "b"])
        #expect(r.dropped == 0)
    }

    @Test func keepsTheNewestInOrderAndCountsTheRest() {
        var r = RecentLines(limit: 3)
        for i in 1...10 { r.append("\(i)") }
        #expect(r.lines == ["8", "9", "10"])
        #expect(r.dropped == 7)
    }
}
