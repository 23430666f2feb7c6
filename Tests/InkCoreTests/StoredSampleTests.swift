// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkCore

@Suite struct StoredSampleTests {
    private let brush = Brush.standard(.calligraphy)

    /// A tilted pen's samples with odd times and positions, as a tablet gives them.
    private func samples(_ count: Int) -> [Sample] {
        (0..<count).map { i in
            let t = 8123.456789 + Double(i) * 0.005_000_3
            return Sample(location: Point(1234.567_891 + Double(i) * 1.37, 987.654_321 - Double(i) * 0.61),
                          pressure: 0.1 + 0.8 * Double(i % 7) / 7, altitude: 0.6 + 0.01 * Double(i),
                          azimuth: -2.5 + 0.3 * Double(i), distance: i % 2 == 0 ? nil : 0.25, time: t,
                          isCoalesced: i % 3 == 0, estimated: i == 4 ? [.pressure] : [])
        }
    }

    /// A classroom day keeps half a million samples: each, with its nib angle, in 24 bytes at most.
    @Test func aStoredSampleTakesAtMostTwentyFourBytes() {
        #expect(MemoryLayout<StoredSample>.stride <= 24)
    }

    /// What a stroke keeps is what it gives back: a stroke built again from its own samples (as
    /// the journal and recovery do) has the same samples and nib angles, and each is close to
    /// what the pen reported.
    @Test func aStrokeGivesBackWhatItKeeps() {
        let input = samples(40)
        let stroke = Stroke(id: 1, brush: brush, source: .pen(device: 1), samples: input, state: .done)
        let again = Stroke(id: 1, brush: brush, source: .pen(device: 1), samples: Array(stroke.samples), state: .done)
        #expect(again.samples == stroke.samples)
        #expect(Array(again.nibAngles) == Array(stroke.nibAngles))
        #expect(stroke.samples.count == input.count)
        for (kept, given) in zip(stroke.samples, input) {
            #expect(abs(kept.location.x - given.location.x) < 1e-3 && abs(kept.location.y - given.location.y) < 1e-3)
            #expect(abs(kept.time - given.time) < 0.6e-6, "whole microseconds")
            #expect(abs(kept.pressure - given.pressure) < 2e-5)
            #expect(abs(kept.altitude - given.altitude) < 3e-5)
            #expect(abs(turn(from: given.azimuth, to: kept.azimuth)) < 1e-4, "the same direction, within a turn")
            #expect(kept.distance == nil ? given.distance == nil : abs(kept.distance! - given.distance!) < 2e-5)
            #expect(kept.isCoalesced == given.isCoalesced && kept.estimated == given.estimated)
        }
    }

    /// The smallest angle from `a` to `b` (either way round).
    private func turn(from a: Double, to b: Double) -> Double {
        let d = (b - a).truncatingRemainder(dividingBy: 2 * .pi)
        if d > .pi { return d - 2 * .pi }
        return d < -.pi ? d + 2 * .pi : d
    }

    /// A sample still waiting for its pressure gets it from the update that carries its index.
    @Test func aSampleWaitingForAnUpdateGetsIt() {
        var stroke = Stroke(id: 1, brush: brush, source: .pen(device: 1))
        var input = samples(5)
        input[3].estimated = [.pressure]
        input[3].estimatesExpectingUpdate = [.pressure]
        input[3].updateIndex = 17
        for s in input { stroke.append(s) }
        #expect(stroke.samples[3].updateIndex == 17)
        #expect(stroke.samples[2].updateIndex == nil)
        var real = input[3]
        real.pressure = 0.75
        let updated = stroke.update(index: 17, with: real)
        #expect(updated)
        #expect(abs(stroke.samples[3].pressure - 0.75) < 2e-5)
        #expect(stroke.samples[3].estimated.isEmpty && stroke.samples[3].estimatesExpectingUpdate.isEmpty)
        let again = stroke.update(index: 17, with: real)
        #expect(!again, "an update comes once")
    }
}
