// SPDX-License-Identifier: Apache-2.0
import Logging
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

extension ScreenContext {
    /// The kiosk's context: forgetting goes to the journal's writer, whose thread does the disk
    /// work (a scrubbing journal's zeros too); the durable form, called from a chore, waits for
    /// it at most 5 s. Without a journal there is nothing to forget.
    public init(pipeline: FramePipeline, journal writer: JournalWriter?, chores: BackgroundChores, log: Logger) {
        self.init(pipeline: pipeline, forgetSaved: { writer?.reset() }, forgetSavedDurably: {
            guard let writer else { return true }
            writer.reset()
            return writer.flush(timeout: 5)
        }, chores: chores, log: log)
    }
}
