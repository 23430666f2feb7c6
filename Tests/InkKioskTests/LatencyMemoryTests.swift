// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkKiosk

@Suite struct LatencyMemory {
    @Test func onlyTheMostRecentFramesAreKept() {
        var r = RecentValues(capacity: 4)
        for v in 1...10 { r.append(Double(v)) }
        #expect(r.values.sorted() == [7, 8, 9, 10])
    }
}
