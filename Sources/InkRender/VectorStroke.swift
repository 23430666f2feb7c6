// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// A stroke's ink for SVG and PDF: the figures `StrokeVectors` makes of it (the centre line as
/// Béziers for a round pen, the pieces' shapes for other tools), replayed into cairo. The same
/// figures are what a signed PDF's field shows (InkDocument's `VectorInk`).
enum VectorStroke {
    static func draw(_ stroke: Stroke, in cr: OpaquePointer) {
        var sink = ShapePainter.CairoSink(cr: cr, alpha: 1)
        StrokeVectors.emit(stroke, into: &sink)
    }
}
