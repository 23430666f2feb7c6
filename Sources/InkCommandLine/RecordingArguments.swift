// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Glibc
import InkCore

/// The arguments every command that plays a recording takes (`replay`, `bench`).
public struct RecordingArguments: ParsableArguments {
    @Argument(help: "The recording (.inklog).")
    public var file: String

    @Flag(name: .customLong("no-prediction"), help: "Do not draw predicted ink ahead of the pen.")
    public var noPrediction = false

    public init() {}

    /// The recording, or an exit with `FILE:LINE: problem` on stderr.
    public func load() throws -> Recording {
        try reportingBadLines { try InklogReader.read(contentsOf: URL(fileURLWithPath: file)) }
    }

    /// The recording, to be read as it plays (`body` of `reportingBadLines`: a bad line shows
    /// when it is reached).
    public func stream() throws -> InklogStream {
        try reportingBadLines { try InklogStream(path: file) }
    }

    /// `body`, with a bad line of the recording turned into an exit with `FILE:LINE: problem` on stderr.
    public func reportingBadLines<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as InklogError {
            throw CleanExit.message(e.description, code: 1)
        }
    }
}
