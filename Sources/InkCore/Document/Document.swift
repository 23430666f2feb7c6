// SPDX-License-Identifier: Apache-2.0
/// The drawing: finished strokes in paint order, the strokes being drawn, and undo history.
///
/// It also remembers what changed since the renderer last looked (`takeChanges`), so that a
/// frame repaints only what it must.
public struct Document: Sendable {
    public private(set) var strokes: [Stroke] = []
    public private(set) var active: [StrokeSource: Stroke] = [:]
    private var undoStack: [Edit] = []
    private var redoStack: [Edit] = []
    /// Counts changes to the finished ink: a page's picture kept elsewhere is valid while this is the same.
    public private(set) var revision = 0
    /// How many steps undo reaches back; older steps are forgotten (their ink stays).
    public private(set) var undoDepth: Int
    private var nextID = 1
    private var changes = DocumentChanges()
    /// Edits not yet handed to the journal (`takeEdits`).
    private var edits: [DocumentEdit] = []
    /// Strokes an eraser stroke in progress has removed (one undo step when it ends).
    private var erasing: [StrokeSource: [(index: Int, stroke: Stroke)]] = [:]

    enum Edit: Sendable {
        case added(Stroke)
        case erased([(index: Int, stroke: Stroke)])
        case cleared([Stroke])
    }

    /// The undo depth when a config names none: a lesson's worth of mistakes on one page.
    public static let defaultUndoDepth = 100

    public init(undoDepth: Int = Document.defaultUndoDepth) {
        self.undoDepth = max(0, undoDepth)
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    public var isEmpty: Bool { strokes.isEmpty }

    public mutating func apply(_ intent: Intent) {
        switch intent {
        case let .beginStroke(source, brush, sample):
            if active[source] != nil { finish(source) }
            var stroke = Stroke(id: nextID, brush: brush, source: source)
            nextID += 1
            stroke.append(sample)
            active[source] = stroke
            if brush.tool == .eraser { erasing[source] = []; erase(source, from: nil, to: sample) }
        case let .appendSample(source, sample):
            // In place: a copy out of `active` would copy every sample of the stroke each time.
            guard active[source] != nil else { return }
            let previous = active[source]?.samples.last
            active[source]?.append(sample)
            if active[source]?.brush.tool == .eraser { erase(source, from: previous, to: sample) }
        case let .updateSample(source, index, sample):
            active[source]?.update(index: index, with: sample)
        case let .endStroke(source):
            finish(source)
        case .press:
            break   // a control was pressed: the screen handles it, the drawing does not change
        case let .cancelStroke(source):
            guard var stroke = active.removeValue(forKey: source) else { return }
            stroke.state = .cancelled
            changes.ended.append(stroke)
            if let removed = erasing.removeValue(forKey: source), !removed.isEmpty {
                pushErase(removed)   // what an eraser already removed stays removed, undoably
            }
        }
    }

    /// Ends every stroke being drawn as it is (before the page is turned away from).
    public mutating func finishActive() {
        for source in active.keys.sorted(by: { (active[$0]?.id ?? 0) < (active[$1]?.id ?? 0) }) { finish(source) }
    }

    /// Marks this frame's samples of every active stroke (all but each one's last are coalesced).
    public mutating func finishFrame() {
        for source in active.keys { active[source]?.finishFrame() }
    }

    private mutating func finish(_ source: StrokeSource) {
        guard var stroke = active.removeValue(forKey: source) else { return }
        stroke.state = .done
        stroke.trim()
        changes.ended.append(stroke)
        if stroke.brush.tool == .eraser {
            if let removed = erasing.removeValue(forKey: source), !removed.isEmpty { pushErase(removed) }
            return
        }
        strokes.append(stroke)
        push(.added(stroke))
        edits.append(.added(stroke))
    }

    private mutating func pushErase(_ removed: [(index: Int, stroke: Stroke)]) {
        push(.erased(removed))
        edits.append(.erased(removed.map(\.stroke.id)))
    }

    private mutating func push(_ edit: Edit) {
        revision += 1
        undoStack.append(edit)
        if undoStack.count > undoDepth { undoStack.removeFirst(undoStack.count - undoDepth) }
        redoStack.removeAll()
    }

    // MARK: eraser

    /// Removes every finished stroke whose ink the eraser's path from `a` to `b` touches.
    private mutating func erase(_ source: StrokeSource, from a: Sample?, to b: Sample) {
        guard let eraser = active[source]?.brush else { return }
        let radius = eraser.width / 2
        let start = a?.location ?? b.location, end = b.location
        let steps = max(1, Int((start.distance(to: end) / max(radius / 2, 1)).rounded(.up)))
        let probes = (0...steps).map { start + (end - start) * (Double($0) / Double(steps)) }
        let reach = Rect.bounding(probes).outset(by: radius)
        var index = strokes.count - 1
        while index >= 0 {
            let stroke = strokes[index]
            if stroke.bounds.intersects(reach), Self.touches(stroke, probes, radius) {
                strokes.remove(at: index)
                revision += 1
                erasing[source, default: []].append((index, stroke))
                changes.invalid.append(stroke.bounds)
            }
            index -= 1
        }
    }

    static func touches(_ stroke: Stroke, _ probes: [Point], _ radius: Double) -> Bool {
        let s = stroke.samples
        for probe in probes {
            for i in s.indices {
                let a = s.location(at: max(i - 1, 0)), b = s.location(at: i)
                let halfInk = stroke.brush.inkWidth(pressure: s[i].pressure) / 2
                if distance(from: probe, toSegment: a, b) <= radius + halfInk { return true }
            }
        }
        return false
    }

    // MARK: undo, redo, clear

    public mutating func undo() {
        guard let edit = undoStack.popLast() else { return }
        revision += 1
        revert(edit)
        redoStack.append(edit)
        edits.append(.undo)
    }

    public mutating func redo() {
        guard let edit = redoStack.popLast() else { return }
        revision += 1
        reapply(edit)
        undoStack.append(edit)
        edits.append(.redo)
    }

    /// Removes every finished stroke, as one undoable step.
    public mutating func clear() {
        guard !strokes.isEmpty else { return }
        push(.cleared(strokes))
        strokes.removeAll()
        changes.everything = true
        edits.append(.clear)
    }

    private mutating func revert(_ edit: Edit) {
        switch edit {
        case .added(let stroke):
            strokes.removeAll { $0.id == stroke.id }
            changes.invalid.append(stroke.bounds)
        case .erased(let removed):
            // Reinsert in the reverse order of removal, so each lands at its old index.
            for (index, stroke) in removed.reversed() {
                strokes.insert(stroke, at: min(index, strokes.count))
                changes.invalid.append(stroke.bounds)
            }
        case .cleared(let all):
            strokes = all
            changes.everything = true
        }
    }

    private mutating func reapply(_ edit: Edit) {
        switch edit {
        case .added(let stroke):
            strokes.append(stroke)
            changes.invalid.append(stroke.bounds)
        case .erased(let removed):
            let ids = Set(removed.map(\.stroke.id))
            strokes.removeAll { ids.contains($0.id) }
            changes.invalid += removed.map(\.stroke.bounds)
        case .cleared:
            strokes.removeAll()
            changes.everything = true
        }
    }

    /// Finished edits since the last call, in order: what a journal must keep.
    public mutating func takeEdits() -> [DocumentEdit] {
        defer { edits.removeAll() }
        return edits
    }

    /// Rebuilds the document from journalled edits (after a restart): the same strokes, in the
    /// same order, with the same undo history.
    public mutating func restore(_ journal: [DocumentEdit]) {
        for edit in journal {
            switch edit {
            case .added(var stroke):
                stroke.state = .done
                strokes.append(stroke)
                push(.added(stroke))
                nextID = max(nextID, stroke.id + 1)
            case .placed(var stroke):
                stroke.state = .done
                strokes.append(stroke)
                nextID = max(nextID, stroke.id + 1)
            case .erased(let ids):
                // Top to bottom, as the eraser removes them, so that undo puts each back in place.
                var removed: [(index: Int, stroke: Stroke)] = []
                for index in strokes.indices.reversed() where ids.contains(strokes[index].id) {
                    removed.append((index, strokes.remove(at: index)))
                }
                if !removed.isEmpty { push(.erased(removed)) }
            case .undo: undo()
            case .redo: redo()
            case .clear: clear()
            }
        }
        edits.removeAll()
        revision += 1
        changes = DocumentChanges()
        changes.everything = true
    }

    /// Changes the renderer has not been shown yet (`takeChanges`).
    /// Strokes that ended since the changes were last taken, in order (to start drawing them early).
    public var endedSinceTaken: [Stroke] { changes.ended }

    public var hasUntakenChanges: Bool { !changes.ended.isEmpty || !changes.invalid.isEmpty || changes.everything }

    /// The shortest edits that rebuild this page: its ink and its undo and redo steps, as
    /// `restore` takes them (what a compacted journal keeps). Ink older than the undo steps is
    /// placed, not added, so it cannot be undone after a restore either.
    public func compacted() -> [DocumentEdit] {
        // Undo everything on a copy: what is left is the ink before the oldest step, and the
        // redo stack then holds every step, the oldest on top.
        var base = self
        while base.canUndo { base.undo() }
        var out = base.strokes.map { DocumentEdit.placed($0) }
        for step in base.redoStack.reversed() {
            switch step {
            case .added(let stroke): out.append(.added(stroke))
            case .erased(let removed): out.append(.erased(removed.map(\.stroke.id)))
            case .cleared: out.append(.clear)
            }
        }
        out += Array(repeating: .undo, count: redoStack.count)
        return out
    }

    /// The strokes and samples this page holds in its ink and its history (erased and cleared
    /// strokes stay while undo can bring them back), and the bytes their samples take: what
    /// its memory grows with.
    public var held: (strokes: Int, samples: Int, bytes: Int) {
        var held: [StrokeID: (samples: Int, bytes: Int)] = [:]
        func hold(_ s: Stroke) { held[s.id] = (s.samples.count, s.samples.bytes) }
        for s in strokes { hold(s) }
        for step in undoStack + redoStack {
            switch step {
            case .added(let s): hold(s)
            case .erased(let removed): for (_, s) in removed { hold(s) }
            case .cleared(let all): for s in all { hold(s) }
            }
        }
        return (held.count, held.values.reduce(0) { $0 + $1.samples }, held.values.reduce(0) { $0 + $1.bytes })
    }

    /// What changed since the last call; the renderer repaints from it.
    public mutating func takeChanges() -> DocumentChanges {
        defer { changes = DocumentChanges() }
        return changes
    }
}

/// Changes the renderer must reflect.
public struct DocumentChanges: Sendable {
    /// Strokes that stopped being active (done or cancelled), with their final samples.
    public var ended: [Stroke] = []
    /// Regions of finished ink that must be repainted from the document (erase, undo, redo).
    public var invalid: [Rect] = []
    /// The whole canvas must be repainted (clear, or undoing a clear).
    public var everything = false
}

/// One finished change to the drawing, in the order it happened.
public enum DocumentEdit: Sendable, Equatable {
    case added(Stroke)
    /// A stroke already on the page that undo does not reach (written by compaction).
    case placed(Stroke)
    case erased([StrokeID])
    case undo, redo, clear
}
