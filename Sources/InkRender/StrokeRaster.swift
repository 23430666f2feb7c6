// SPDX-License-Identifier: Apache-2.0
import CCairo
import Dispatch
import FoundationEssentials
import Glibc
import InkCore
import Synchronization

/// Finished strokes drawn off the canvas, each on a small image of its own, on several threads:
/// what the renderer does when many strokes end at once (a replay that draws only its final
/// picture ends every stroke in one frame).
///
/// Each stroke gets exactly the drawing calls a stroke's layer gets in `FrameRenderer` (its
/// pieces one by one, in order, on transparent pixels), on an image that covers only where the
/// stroke is painted, placed there by a whole-pixel device offset. cairo rasterises a path the
/// same way under a whole-pixel translation, so the pixels are the layer's; the canvas then gets
/// them in document order, as `FrameRenderer.end` paints a layer. `ReplayFinalPictureTests`
/// compares the two pictures pixel for pixel.
///
/// `whole`: a pen or highlighter stroke is one path, filled once (non-zero rule), made of its
/// pieces joined where the curve turns gently (`StrokeShaper.wholeStroke`): cairo rasterises about
/// half the edges, once. Where the pieces overlapped, their antialiased edges no longer add
/// up, so edge pixels differ by a few levels from the live screen's; a replay that writes only
/// its final picture draws this way (`FrameRenderer(wholeStrokes:)`, within the tolerance
/// `ReplayFinalPictureTests` states). Other tools are drawn piece by piece either way.
enum StrokeRaster {
    /// A stroke's ink, drawn: paint `image` onto the canvas within `clip` with the stroke's opacity.
    /// A value whose image is finished (flushed) before it is handed over, through `ParallelResults`'s or
    /// `Ahead`'s lock, and only painted from after.
    struct Drawn: Sendable {
        /// nil when the stroke left no ink on the screen.
        let image: ImageSurface?
        /// Where the layer would be painted: the inked area grown by 2, in whole pixels.
        let clip: Rect
        /// The union of the pieces' bounds (the layer's `inked`).
        let inked: Rect
        /// Already painted onto the canvas (`Ahead` with a canvas): nothing left to paint.
        var onCanvas = false
    }

    /// Strokes fewer than this are drawn on the calling thread, as the renderer always did.
    static let parallelFrom = 4

    /// Draws each of `strokes` (all done, none with a layer yet), using every core.
    static func draw(_ strokes: [Stroke], screen: PixelSize, whole: Bool = false) throws -> [Drawn] {
        let results = ParallelResults<Drawn>(count: strokes.count, what: "a stroke's drawing")
        let workers = min(strokes.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        if workers <= 1 || strokes.count < parallelFrom {
            for (i, stroke) in strokes.enumerated() { results.set(i, Result { try draw(stroke, screen: screen, whole: whole) }) }
        } else {
            // Strokes are taken in order from a shared counter: a long stroke does not hold up
            // a worker's whole share.
            let next = Counter()
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let i = next.take()
                    guard i < strokes.count else { return }
                    results.set(i, Result { try draw(strokes[i], screen: screen, whole: whole) })
                }
            }
        }
        return try results.values()
    }

    /// One stroke, drawn as its layer would be, or as one path (`whole`; see the type's comment).
    static func draw(_ stroke: Stroke, screen: PixelSize, whole: Bool = false) throws -> Drawn {
        let shaper = StrokeShaper(brush: stroke.brush)
        // Whole: one list of shapes, filled at once. Else each piece's own shapes, one fill each.
        var pieces: [[InkShape]] = []
        var inked = Rect.empty
        if whole, let shapes = shaper.wholeStroke(samples: stroke.samples, nibAngles: stroke.nibAngles) {
            for shape in shapes { inked = inked.union(shape.path.bounds) }
            pieces = [shapes]
        } else {
            pieces.reserveCapacity(stroke.samples.count)
            for k in stroke.samples.indices where StrokeShaper.isFinal(piece: k, count: stroke.samples.count, done: true) {
                let piece = shaper.piece(k, samples: stroke.samples, nibAngles: stroke.nibAngles)
                inked = inked.union(piece.bounds)
                pieces.append(piece.shapes)
            }
        }
        let clip = inked.outset(by: 2).integral
        let area = clip.intersection(Rect(x: 0, y: 0, width: Double(screen.width), height: Double(screen.height)))
        guard !inked.isEmpty, !area.isEmpty, area.width >= 1, area.height >= 1 else {
            return Drawn(image: nil, clip: clip, inked: inked)
        }
        let image = try ImageSurface(size: PixelSize(width: Int(area.width), height: Int(area.height)), format: .argb,
                                     origin: Point(area.minX, area.minY))
        let ctx = CairoContext(image)
        for shapes in pieces { ShapePainter.draw(shapes, in: ctx.cr) }
        cairo_surface_flush(image.surface)
        return Drawn(image: image, clip: clip, inked: inked)
    }

    /// Strokes drawn ahead on another thread while the caller goes on with other work (a replay
    /// that draws only its final picture hands over each stroke as it ends, and reads the next
    /// events meanwhile). `take` gives a stroke's drawing, drawing it on the calling thread if
    /// no worker has started it.
    ///
    /// With a `canvas` (the renderer's, which nothing else touches until `finish`), one worker
    /// lays the `paper` on it first, then paints each stroke onto it as soon as it is drawn, in
    /// the order handed over (as `FrameRenderer.end` would, with the same calls): no stroke's
    /// pixels wait for the frame, and the painted ones are a prefix of the strokes handed over,
    /// so those left for the frame still go on in order after them.
    /// Thread safety: its mutable state is used only under `lock`, the rest is set in init; the canvas's pixels
    /// are drawn on by the one worker (`workers` is 1 then) until `finish`, which waits for it.
    final class Ahead: @unchecked Sendable {
        private let screen: PixelSize
        private let whole: Bool
        private let canvas: ImageSurface?
        private var paper: RGBA?
        private let workers: Int
        private let lock = Condition()
        private var queue: [Stroke] = []
        private var next = 0
        /// Strokes from here on are drawn by `finishTogether`'s caller (from the back).
        private var back = Int.max
        /// Workers asked for, and those that have started (only these are waited for: a
        /// worker the thread pool never got round to must not hold anyone up).
        private var scheduled = 0
        private var working = 0
        private var closed = false
        private var drawn: [StrokeID: (stroke: Stroke, result: Result<Drawn, any Error>)] = [:]
        private var drawing: Set<StrokeID> = []
        /// Pixels waiting to be painted, and the most there may be: the rest is drawn at the end,
        /// on every core (the 60-signature page takes as long with 16 MB as with 96 MB).
        private var bytes = 0
        private let budget: Int

        init(screen: PixelSize, whole: Bool = false, canvas: ImageSurface? = nil, paper: RGBA? = nil, budget: Int = 16 << 20) {
            self.screen = screen
            self.whole = whole
            self.canvas = canvas
            self.paper = canvas == nil ? nil : paper
            self.budget = budget
            workers = canvas != nil ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        }

        /// Whether the workers paint onto the canvas.
        var paintsCanvas: Bool { canvas != nil }

        /// Whether the canvas still needs its paper (no worker got to it before `finish`).
        var paperPending: Bool {
            lock.lock()
            defer { lock.unlock() }
            return paper != nil
        }

        /// Starts drawing `strokes` (done strokes only; others are ignored) on worker threads.
        func submit(_ strokes: [Stroke]) {
            lock.lock()
            defer { lock.unlock() }
            guard !closed else { return }
            queue += strokes.filter { $0.state == .done && $0.brush.tool != .eraser }
            while scheduled < workers && next < queue.count && bytes < budget {
                scheduled += 1
                DispatchQueue.global().async { self.work() }
            }
        }

        private func work() {
            lock.lock()
            working += 1
            if !closed, let canvas, let color = paper {
                paper = nil
                lock.unlock()
                CairoContext(canvas).fill(Rect(x: 0, y: 0, width: Double(screen.width), height: Double(screen.height)), with: color)
                lock.lock()
            }
            while !closed && next < min(queue.count, back) && bytes < budget {
                let stroke = queue[next]
                next += 1
                drawing.insert(stroke.id)
                lock.unlock()
                // Drawn on its image and painted as the frame would paint it: the picture is the
                // same whichever thread drew which stroke (a fill straight onto the canvas would
                // round a few pixels differently from the image the frame paints).
                var result = Result { try StrokeRaster.draw(stroke, screen: screen, whole: whole) }
                if let canvas, case .success(let d) = result {
                    if let image = d.image { CairoContext(canvas).paint(image, opacity: stroke.brush.opacity, in: d.clip) }
                    result = .success(Drawn(image: nil, clip: d.clip, inked: d.inked, onCanvas: true))
                }
                lock.lock()
                if case .success(let d) = result, let image = d.image { bytes += image.size.width * image.size.height * 4 }
                // On the canvas the strokes go on in order: after one that failed, none does.
                if canvas != nil, case .failure = result { closed = true }
                drawn[stroke.id] = (stroke, result)
                drawing.remove(stroke.id)
            }
            working -= 1
            scheduled -= 1
            lock.broadcast()
            lock.unlock()
        }

        /// The drawing of `stroke` if a worker drew it (after `finish`); nil if none did.
        /// `changed`: it was painted onto the canvas as handed over, and has changed since.
        func take(_ stroke: Stroke, changed: inout Bool) throws -> Drawn? {
            lock.lock()
            let done = drawn.removeValue(forKey: stroke.id)
            lock.unlock()
            guard let done else { return nil }
            // A stroke is drawn as it was handed over; one that changed since is drawn again.
            guard done.stroke == stroke else {
                if case .success(let d) = done.result, d.onCanvas { changed = true }
                return nil
            }
            return try done.result.get()
        }

        /// With a canvas: the strokes no worker has started are shared out, the worker going on
        /// from the front (painting onto the canvas), the calling thread and the other cores
        /// drawing from the back (each on an image, which the frame then paints in order, after
        /// the painted ones); then as `finish`.
        func finishTogether() {
            guard canvas != nil else { return finish() }
            lock.lock()
            back = queue.count
            lock.unlock()
            let helpers = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
            DispatchQueue.concurrentPerform(iterations: helpers) { _ in
                lock.lock()
                while !closed && next < back {
                    back -= 1
                    let stroke = queue[back]
                    lock.unlock()
                    let result = Result { try StrokeRaster.draw(stroke, screen: screen, whole: whole) }
                    lock.lock()
                    drawn[stroke.id] = (stroke, result)
                }
                lock.unlock()
            }
            finish()
        }

        /// Hands out no more work, and waits for the strokes being drawn.
        func finish() {
            lock.lock()
            closed = true
            while working > 0 { lock.wait() }
            lock.unlock()
        }
    }

    /// The next number to take, for every worker at once.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
    }
}
