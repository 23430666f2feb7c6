// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkCore

/// A stroke with a few samples along a row, at `y`.
private func stroke(_ id: Int, y: Double) -> Stroke {
    let samples = (0..<4).map { i in
        Sample(location: Point(10 + 20 * Double(i), y), pressure: 0.5, altitude: 1, azimuth: 0, time: Double(id) + 0.01 * Double(i))
    }
    return Stroke(id: id, brush: .standard(.pen), source: .pen(device: 1), samples: samples, state: .done)
}

/// Draws a finished stroke on the page, as the pipeline's intents do.
private func draw(_ d: inout Document, y: Double) {
    let s = stroke(0, y: y)
    d.apply(.beginStroke(.pen(device: 1), .standard(.pen), s.samples[0]))
    for sample in s.samples.dropFirst() { d.apply(.appendSample(.pen(device: 1), sample)) }
    d.apply(.endStroke(.pen(device: 1)))
}

private func ids(_ d: Document) -> [Int] { d.strokes.map(\.id) }

@Suite struct UndoDepth {
    @Test func undoReachesBackOnlyTheConfiguredSteps() {
        var d = Document(undoDepth: 3)
        for i in 0..<5 { draw(&d, y: Double(10 * i)) }
        var undone = 0
        while d.canUndo { d.undo(); undone += 1 }
        #expect(undone == 3)
        #expect(d.strokes.count == 2, "the ink of forgotten steps stays")
    }

    @Test func aRestoredJournalForgetsTheSameSteps() {
        var d = Document(undoDepth: 2)
        for i in 0..<4 { draw(&d, y: Double(10 * i)) }
        d.undo()
        var restored = Document(undoDepth: 2)
        restored.restore(d.takeEdits())
        #expect(ids(restored) == ids(d))
        restored.undo(); d.undo()
        #expect(ids(restored) == ids(d))
        #expect(restored.canUndo == d.canUndo)
    }
}

@Suite struct Compaction {
    /// Random drawing, erasing, undo, redo and clear; then the compacted edits rebuild a page
    /// that has the same ink and answers every undo and redo the same way.
    @Test(arguments: 0..<40)
    func compactedEditsRebuildInkAndHistory(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) + 1)
        var d = Document(undoDepth: 6)
        for _ in 0..<30 {
            switch rng.next() % 10 {
            case 0...4: draw(&d, y: Double(rng.next() % 400))
            case 5: d.undo()
            case 6: d.redo()
            case 7: d.clear()
            case 8:
                // An eraser stroke across a stroke's row, if there is one.
                guard let target = d.strokes.randomElement(using: &rng) else { continue }
                let y = target.samples[0].location.y
                let eraser = Brush.standard(.eraser)
                d.apply(.beginStroke(.pen(device: 2), eraser, Sample(location: Point(10, y), pressure: 0.5, altitude: 1, azimuth: 0, time: 0)))
                d.apply(.appendSample(.pen(device: 2), Sample(location: Point(80, y), pressure: 0.5, altitude: 1, azimuth: 0, time: 0.1)))
                d.apply(.endStroke(.pen(device: 2)))
            default: d.undo(); d.undo()
            }
        }
        let compacted = d.compacted()
        var rebuilt = Document(undoDepth: 6)
        rebuilt.restore(compacted)
        #expect(ids(rebuilt) == ids(d))
        // Walk the history both ways on each: every step matches.
        var a = d, b = rebuilt
        while a.canUndo || b.canUndo {
            #expect(a.canUndo == b.canUndo)
            a.undo(); b.undo()
            #expect(ids(a) == ids(b))
        }
        while a.canRedo || b.canRedo {
            #expect(a.canRedo == b.canRedo)
            a.redo(); b.redo()
            #expect(ids(a) == ids(b))
        }
        #expect(compacted.count <= 30 + d.strokes.count)
    }

    @Test func aNotebookComesBackWithItsPagesAndThePageOnScreen() {
        var n = Notebook(undoDepth: 10)
        draw(&n.page, y: 10)
        n.addPage()
        draw(&n.page, y: 20); draw(&n.page, y: 30)
        n.page.undo()
        n.addPage()
        n.turn(to: 1)
        var rebuilt = Notebook(undoDepth: 10)
        rebuilt.restore(n.compacted())
        #expect(rebuilt.count == 3 && rebuilt.current == 1)
        #expect(rebuilt.pages.map { $0.strokes.count } == n.pages.map { $0.strokes.count })
        #expect(rebuilt.page.canRedo)
        rebuilt.page.redo()
        #expect(rebuilt.page.strokes.count == 2)
    }

    @Test func longHistoryCompactsToTheInkAndTheStepsKept() {
        var d = Document(undoDepth: 5)
        for i in 0..<200 { draw(&d, y: Double(i)) }
        let c = d.compacted()
        #expect(c.count == 200)
        #expect(c.filter { if case .placed = $0 { true } else { false } }.count == 195)
    }
}
