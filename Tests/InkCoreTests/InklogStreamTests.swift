// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkCore

/// A recording read as it plays gives the events the whole-file reader gives, whatever the
/// size of the chunks it reads, and stops at a bad line with that line's number.
@Suite struct InklogStreamTests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Recordings")

    static func all(_ stream: InklogStream) throws -> [InkEvent] {
        var events: [InkEvent] = []
        while let e = try stream.next() { events.append(e) }
        return events
    }

    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "inklog-stream-\(UUID().uuidString).inklog"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    // Chunks shorter than a line, a few lines, and the default.
    @Test(arguments: [7, 300, 1 << 20])
    func givesWhatTheReaderGives(chunk: Int) throws {
        for name in ["signatures", "finger", "hover", "stray"] {
            let path = Self.recordings.appendingPathComponent("\(name).inklog").path
            let whole = try InklogReader.read(contentsOf: URL(fileURLWithPath: path))
            let stream = try InklogStream(path: path, chunk: chunk)
            #expect(stream.devices == whole.devices)
            #expect(try Self.all(stream) == whole.events, "\(name), chunks of \(chunk)")
            #expect(stream.eventsRead == whole.events.count && stream.clampedValues == whole.clampedValues)
        }
    }

    @Test func aFinalLineWithoutNewlineIsRead() throws {
        let header = #"{"inklog":1,"devices":[{"id":2,"kind":"touch","name":"T","widthMM":200,"heightMM":120,"direct":true}]}"#
        let path = try Self.file(header + "\n" + #"{"t":1,"dev":2,"ev":"touch-frame"}"# + "\n" + #"{"t":2,"dev":2,"ev":"touch-frame"}"#)
        #expect(try Self.all(InklogStream(path: path, chunk: 5)).map(\.time) == [1, 2])
    }

    @Test func aBadLineStopsItWithItsNumber() throws {
        let header = #"{"inklog":1,"devices":[{"id":2,"kind":"touch","name":"T","widthMM":200,"heightMM":120,"direct":true}]}"#
        let path = try Self.file([header, #"{"t":1,"dev":2,"ev":"touch-frame"}"#, #"{"t":2,"dev":2,"ev":"touch-frame"}"#,
                                  #"{"t":1.5,"dev":2,"ev":"touch-frame"}"#].joined(separator: "\n"))
        let stream = try InklogStream(path: path, chunk: 16)
        #expect(try stream.next()?.time == 1)
        #expect(try stream.next()?.time == 2)
        #expect { _ = try stream.next() } throws: { error in
            (error as? InklogError).map { $0.line == 4 && $0.message.contains("time goes backwards") } ?? false
        }
        #expect(throws: InklogError.self) { _ = try InklogStream(path: Self.file("")) }
        #expect(throws: InklogError.self) { _ = try InklogStream(path: "/nonexistent/x.inklog") }
    }
}
