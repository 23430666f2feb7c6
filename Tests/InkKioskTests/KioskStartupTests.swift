// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import InkConfig
import InkCore
import InkDisplay
import InkStorage
@testable import InkKiosk
@testable import InkPipeline
@testable import InkStorage
import InkTestSupport

/// The start-up's steps (`KioskStartup`) one at a time, without a device: what each makes of
/// what the steps before it made.
@Suite struct StartupSteps {
    let clock = ClockAnchor(wall: 1_790_000_000, mono: 100)

    func directory() throws -> String { try Fixtures.outputDirectory("startup-\(UUID().uuidString.prefix(8))") }

    /// A journal holding a replayed session's edits, and that session's strokes.
    func journal(_ name: String) throws -> (path: String, edits: [NotebookEdit], strokes: [Stroke]) {
        let r = try replay(name)
        let edits = r.pipeline.takeEdits()
        let path = "\(try directory())/\(name).inkj"
        try StrokeJournal(path: path, clock: clock).append(edits)
        return (path, edits, r.pipeline.document.strokes)
    }

    func pipeline(_ options: KioskOptions = KioskOptions(), refreshHz: Int = 60) throws -> FramePipeline {
        let display = try OffscreenDisplay(size: screenSize)
        let settings = KioskStartup.interactionSettings(options, display: display.size)
        return try KioskStartup.makePipeline(options, settings: settings, display: display, refreshHz: refreshHz)
    }

    @Test func theJournalReadBesideTheOtherStepsBringsItsInkBackIntoThePipeline() throws {
        let saved = try journal("eraser")
        let opening = KioskStartup.openJournal(path: saved.path, scrubbing: false, hosted: false)
        let pipeline = try pipeline()
        var report: [String] = []
        let logs = LogCapture()
        let restored = try #require(try KioskStartup.restoreJournal(opening, into: pipeline, hosted: false, report: &report, log: logs.logger))
        #expect(pipeline.document.strokes.map(\.id) == saved.strokes.map(\.id))
        #expect(pipeline.document.strokes.map(\.samples.count) == saved.strokes.map(\.samples.count))
        #expect(report == ["journal \(saved.path): restored \(saved.edits.count) edits, \(saved.strokes.count) strokes"])
        #expect(restored.writer.stop(timeout: 5))
    }

    /// A host's request that died with the last run is not the next one's: its journal is emptied
    /// as it is read, and nothing is restored.
    @Test func aHostedRequestsJournalIsEmptiedNotRestored() throws {
        let saved = try journal("pressure")
        let opening = KioskStartup.openJournal(path: saved.path, scrubbing: true, hosted: true)
        let pipeline = try pipeline()
        var report: [String] = []
        let restored = try #require(try KioskStartup.restoreJournal(opening, into: pipeline, hosted: true, report: &report,
                                                                    log: LogCapture().logger))
        #expect(pipeline.document.strokes.isEmpty)
        #expect(restored.writer.stop(timeout: 5))
        #expect(try StrokeJournal(path: saved.path, clock: clock).recovered.isEmpty)
    }

    /// A journal that cannot be opened leaves the kiosk drawing without one, and says so.
    @Test func anUnopenableJournalLeavesTheKioskWithoutOneAndSaysWhy() throws {
        let file = "\(try directory())/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let opening = KioskStartup.openJournal(path: "\(file)/ink.inkj", scrubbing: false, hosted: false)
        var report: [String] = []
        let logs = LogCapture()
        #expect(try KioskStartup.restoreJournal(opening, into: try pipeline(), hosted: false, report: &report, log: logs.logger) == nil)
        #expect(report.isEmpty)
        let error = try #require(logs.messages(at: .error).first)
        #expect(error.contains("not-a-directory") && error.hasSuffix("ink will not survive a restart"))
        #expect(KioskStartup.openJournal(path: nil, scrubbing: false, hosted: false) == nil)
    }

    @Test func theSignatureScreenSweepsTheCapturesACrashLeftUnfinished() throws {
        let outbox = "\(try directory())/outbox"
        try FileManager.default.createDirectory(atPath: "\(outbox)/.cap-7.partial", withIntermediateDirectories: true)
        try Data("half".utf8).write(to: URL(fileURLWithPath: "\(outbox)/.cap-7.partial/cap-7.png"))
        var options = KioskOptions()
        options.screen.mode = .signature
        options.screen.capture.outbox = outbox
        options.screen.capture.storePlaintext = true
        var report: [String] = []
        let logs = LogCapture()
        let screen = try KioskStartup.makeScreen(options, metrics: options.screen.metrics(size: screenSize, widthMM: 0),
                                                 report: &report, log: logs.logger)
        #expect(screen is SignatureScreen)
        #expect(!FileManager.default.fileExists(atPath: "\(outbox)/.cap-7.partial"))
        #expect(logs.messages(at: .notice).contains { $0.contains("removed 1 files of unfinished captures: .cap-7.partial/") })
        #expect(logs.messages(at: .warning).contains { $0.contains("store_plaintext = true") })
    }

    @Test func theAPIStartsOnlyForAHostAndNeverOpenToOtherMachinesWithoutAToken() throws {
        var options = KioskOptions()
        options.screen.mode = .signature
        options.screen.capture.outbox = "\(try directory())/outbox"
        options.screen.capture.storePlaintext = true
        let metrics = options.screen.metrics(size: screenSize, widthMM: 0)
        var report: [String] = []
        let logs = LogCapture()
        let inkOnly = try KioskStartup.makeScreen(options, metrics: metrics, report: &report, log: logs.logger)
        #expect(try KioskStartup.startAPI(options, screen: inkOnly, booted: nil, report: &report, log: logs.logger) == nil)

        options.screen.api.address = "0.0.0.0:7399"
        options.screen.api.tokenNone = true
        let hosted = try KioskStartup.makeScreen(options, metrics: metrics, report: &report, log: logs.logger)
        #expect {
            try KioskStartup.startAPI(options, screen: hosted, booted: nil, report: &report, log: logs.logger)
        } throws: { error in
            guard case KioskError.apiAddressRefused(let listen, _) = error else { return false }
            return listen == "0.0.0.0:7399"
        }
    }

    /// Prediction looks one refresh ahead of the screen actually driven.
    @Test func thePipelinePredictsOneRefreshOfTheRealScreen() throws {
        #expect(try pipeline(refreshHz: 75).options.fps == 75)
        #expect(try pipeline(refreshHz: 0).options.fps == PipelineOptions().fps)
    }
}
