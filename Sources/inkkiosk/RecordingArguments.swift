import ArgumentParser
import FoundationEssentials
import Glibc
import InkCore

/// The arguments every command that plays a recording takes.
struct RecordingArguments: ParsableArguments {
    @Argument(help: "The recording (.inklog).")
    var file: String

    @Flag(name: .customLong("no-prediction"), help: "Do not draw predicted ink ahead of the pen.")
    var noPrediction = false

    /// The recording, or an exit with `FILE:LINE: problem` on stderr.
    func load() throws -> Recording {
        do { return try InklogReader.read(contentsOf: URL(fileURLWithPath: file)) } catch let e as InklogError {
            throw CleanExit.message(e.description, code: 1)
        }
    }
}
