// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkCore

private let header = #"{"inklog":1,"devices":[{"id":1,"kind":"tablet","name":"Pen","widthMM":224,"heightMM":140,"direct":false},{"id":2,"kind":"touch","name":"Touch","widthMM":200,"heightMM":120,"direct":true}]}"#

private func read(_ lines: [String]) throws -> Recording {
    try InklogReader(name: "test.inklog").read(Data(([header] + lines).joined(separator: "\n").utf8))
}

/// The error a bad recording gives: it must name the line.
private func failure(_ lines: [String]) -> InklogError? {
    do { _ = try read(lines); return nil } catch let e as InklogError { return e } catch { return nil }
}

@Suite struct InklogReading {
    @Test func readsEveryEventKind() throws {
        let r = try read([
            #"{"t":1.0,"dev":1,"ev":"proximity","in":true,"tool":"pen","serial":7,"x":0.5,"y":0.5,"pressure":0,"distance":0.4,"tiltX":10,"tiltY":-5}"#,
            #"{"t":1.01,"dev":1,"ev":"tip","down":true,"x":0.5,"y":0.5,"pressure":0.3,"distance":0}"#,
            #"{"t":1.02,"dev":1,"ev":"axis","x":0.6,"y":0.5,"pressure":0.4,"distance":0,"rotation":20,"slider":-0.5}"#,
            #"{"t":1.03,"dev":1,"ev":"button","button":331,"pressed":true}"#,
            #"{"t":1.04,"dev":2,"ev":"touch-down","slot":0,"x":0.1,"y":0.2}"#,
            #"{"t":1.05,"dev":2,"ev":"touch-motion","slot":0,"x":0.2,"y":0.2}"#,
            #"{"t":1.05,"dev":2,"ev":"touch-frame"}"#,
            #"{"t":1.06,"dev":2,"ev":"touch-up","slot":0}"#,
            #"{"t":1.07,"dev":2,"ev":"touch-cancel","slot":1}"#,
        ])
        #expect(r.devices.count == 2)
        #expect(r.events.count == 9)
        #expect(r.events[0].kind == .proximity(isIn: true, tool: .pen, serial: 7,
                                               axes: Axes(x: 0.5, y: 0.5, pressure: 0, distance: 0.4, tiltX: 10, tiltY: -5)))
        #expect(r.events[2].kind == .axis(Axes(x: 0.6, y: 0.5, pressure: 0.4, distance: 0, rotation: 20, slider: -0.5)))
        #expect(r.events[6].kind == .touchFrame)
        #expect(r.clampedValues == 0)
    }

    @Test func writerOutputReadsBackEqual() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recordings/buttons.inklog")
        let original = try InklogReader.read(contentsOf: url)
        let text = InklogWriter().document(devices: original.devices, events: original.events)
        let again = try InklogReader(name: "again").read(Data(text.utf8))
        #expect(again == original)
    }

    @Test func clampsOutOfRangeValuesAndCountsThem() throws {
        let r = try read([#"{"t":1,"dev":1,"ev":"axis","x":1.2,"y":0.5,"pressure":1.7,"tiltX":400,"tiltY":-5}"#])
        #expect(r.clampedValues == 3)
        #expect(r.events[0].kind == .axis(Axes(x: 1, y: 0.5, pressure: 1, tiltX: 90, tiltY: -5)))
    }

    @Test(arguments: [
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"#, "not valid JSON: Unexpected end"),
        (#"{"t":1,"dev":1,"ev":"wiggle","x":0.5,"y":0.5}"#, "unknown event 'wiggle'"),
        (#"{"t":1,"dev":9,"ev":"axis","x":0.5,"y":0.5}"#, "device 9 is not in the header"),
        (#"{"t":1,"dev":1,"ev":"axis","x":1e999,"y":0.5}"#, "1e999 is not representable"),
        (#"{"t":1,"dev":1,"ev":"tip","down":1,"x":0.5,"y":0.5}"#, "field 'down': expected true or false"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,"presure":0.5}"#, "unknown field 'presure'"),
        (#"{"t":1,"dev":1,"ev":"axis","y":0.5}"#, "field 'x' is missing"),
        (#"{"t":1,"dev":1,"ev":"touch-down","slot":0,"x":0.5,"y":0.5}"#, "needs a touch device"),
        (#"{"t":1,"dev":1,"ev":"proximity","in":true,"tool":"crayon","x":0.5,"y":0.5}"#, "unknown tool 'crayon'"),
        (#""#, "empty line"),
    ])
    func badLineNamesItsLine(line: String, message: String) throws {
        let good = #"{"t":0.5,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#
        let error = try #require(failure([good, line, good]))
        #expect(error.line == 3, "\(error)")
        #expect(error.description.hasPrefix("test.inklog:3: "))
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func timeGoingBackwardsIsAnError() throws {
        let error = try #require(failure([
            #"{"t":2,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#,
            #"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#,
        ]))
        #expect(error.line == 3)
        #expect(error.message.contains("time goes backwards"))
    }

    @Test func headerProblemsAreLineOne() throws {
        #expect(throws: InklogError.self) { try InklogReader(name: "x").read(Data()) }
        do {
            _ = try InklogReader(name: "x").read(Data(#"{"inklog":2,"devices":[]}"#.utf8))
            Issue.record("version 2 accepted")
        } catch let e as InklogError {
            #expect(e.line == 1 && e.message.contains("version 2"))
        }
    }
}
