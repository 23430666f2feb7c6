import InkStorage
import InkPipeline

extension JournalWriter {
    /// Hands the pipeline's finished edits over, and compacts the journal when it has grown
    /// past twice the notebook it holds (the kiosk and the soak benchmark do the same).
    public func save(from pipeline: FramePipeline) {
        let edits = pipeline.takeEdits()
        guard !edits.isEmpty else { return }
        submit(edits, deviceNames: pipeline.deviceNames)
        if state.outgrown { compact(pipeline.notebook.compacted(), deviceNames: pipeline.deviceNames) }
    }
}
