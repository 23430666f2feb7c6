// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Glibc
import InkAPI
import InkCommandLine
import InkCore
import InkDocument
import InkKiosk
import InkPipeline

/// `inkkiosk-bench pdf-bench FILE`: what a host's PDF costs the kiosk's reader as `POST
/// /documents` reads it (under `[limits]`' defaults): the whole file read once with one reading
/// checked, its pages and fields found, and a new field signed; or how quickly a hostile file is
/// refused. One file a process, so that its peak memory is its own. Figures only.
struct PDFBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdf-bench",
        abstract: "Time the PDF reader on one file as an upload reads it: read and checked, pages and fields, signed; or refused.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    @Argument(help: "The PDF.")
    var file: String

    @Option(help: "Reads timed.")
    var runs = 10

    struct Report: Codable {
        var file: String
        var bytes: Int
        /// "taken", or the refusal's kind and message.
        var outcome: String
        var pages: Int?
        /// Reading (parsing every object, the checks of one reading), pages and fields, signing a new field.
        var readMs: Summary
        var signableMs: Summary?
        var signMs: Summary?
        var valuesParsed: Int?
        var inflatedMiB: Double?
        var peakRSSMiB: Double
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw CleanExit.message("cannot read \(file)", code: 1) }
        let bytes = [UInt8](data)
        let limits = APILimits().documentReadLimits
        let clock = ContinuousClock()
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        var read: [Double] = [], signable: [Double] = [], sign: [Double] = []
        var outcome = "taken", pages: Int?, values: Int?, inflated: Double?
        for _ in 0..<max(1, runs) {
            var document: PDFDocument?
            let start = clock.now
            do {
                document = try PDFDocument(bytes: bytes, limits: limits)
                read.append(ms(clock.now - start))
            } catch {
                read.append(ms(clock.now - start))
                outcome = "refused: \(error)"
                continue
            }
            guard let document else { continue }
            let found = clock.now
            values = document.readValues
            inflated = Double(document.readInflatedBytes) / 1_048_576
            let fields: SignableDocument
            do { fields = try document.signable() } catch { outcome = "refused: \(error)"; continue }
            signable.append(ms(clock.now - found))
            pages = fields.pages.count
            guard let page = fields.pages.first else { continue }
            let rect = PDFRect(page.cropBox.x0 + 20, page.cropBox.y0 + 20, page.cropBox.x0 + 220, page.cropBox.y0 + 80)
            let signing = clock.now
            _ = try InkSigning.sign(document, with: VectorInk([]), at: .newField(name: "bench", pageIndex: 0, rect: rect))
            sign.append(ms(clock.now - signing))
        }
        let report = Report(file: file, bytes: bytes.count, outcome: String(outcome.prefix(300)), pages: pages, readMs: Summary(read),
                            signableMs: signable.isEmpty ? nil : Summary(signable), signMs: sign.isEmpty ? nil : Summary(sign),
                            valuesParsed: values, inflatedMiB: inflated, peakRSSMiB: ProcessMemory.peakMiB())
        func f(_ v: Double) -> String { String(cFormat: "%.1f", v) }
        func line(_ s: Summary) -> String { "median \(f(s.median)) ms, p99 \(f(s.p99)) ms, max \(f(s.max)) ms" }
        print("\(file): \(bytes.count) bytes, \(report.outcome)\(pages.map { ", \($0) pages" } ?? "")")
        print("  read and checked    \(line(report.readMs)) (\(read.count) runs)")
        if let s = report.signableMs { print("  pages and fields    \(line(s))") }
        if let s = report.signMs { print("  a new field signed  \(line(s))") }
        if let values, let inflated { print("  values parsed       \(values); inflated \(f(inflated)) MiB") }
        print("  memory              peak RSS \(f(report.peakRSSMiB)) MiB (ru_maxrss)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}
