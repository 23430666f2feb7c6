// SPDX-License-Identifier: Apache-2.0
import InkConfig
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import Glibc
import InkCore
import InkRender
import InkDisplay
import InkKiosk
#if canImport(Glibc)
import InkPipeline
#endif

/// `inkkiosk-bench bench`: plays a (long) recording through the real pipeline and reports what a
/// frame costs, whether that cost stays flat as ink accumulates, and what a full redraw
/// per frame would cost instead. Figures only: nothing here passes or fails.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Replay a recording and report frame cost, throughput, memory and flatness.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    @OptionGroup var input: RecordingArguments

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = PixelSize(width: 1920, height: 1080)

    struct Flatness: Codable {
        /// 1-based, inclusive stroke ranges that are compared.
        var firstStrokes: [Int]
        var lastStrokes: [Int]
        var firstMs: Double
        var lastMs: Double
        /// lastMs / firstMs: 1 means a frame costs the same with much ink on the canvas as with little.
        var ratio: Double
    }

    struct Checkpoint: Codable {
        var strokes: Int
        var ms: Double
    }

    struct Report: Codable {
        var recording: String
        var size: String
        var prediction: Bool
        var events: Int
        var samples: Int
        var strokes: Int
        var frames: Int
        /// Playing the recording, without reading it from the file (`readSeconds`).
        var wallSeconds: Double
        var readSeconds: Double
        var samplesPerSecond: Double
        var frameMs: Summary
        /// The whole run's peak resident memory, and the peak when the replay had ended.
        var peakRSSMiB: Double
        var replayPeakRSSMiB: Double
        var flatness: Flatness?
        var fullRedrawMs: [Checkpoint]

        /// The same figures to a sensible number of digits, for the JSON line.
        func rounded() -> Report {
            func r(_ x: Double, _ digits: Int) -> Double {
                let scale = pow(10, Double(digits))
                return (x * scale).rounded() / scale
            }
            var c = self
            c.wallSeconds = r(wallSeconds, 6)
            c.samplesPerSecond = r(samplesPerSecond, 1)
            c.frameMs = frameMs
            c.frameMs.median = r(frameMs.median, 4); c.frameMs.p99 = r(frameMs.p99, 4); c.frameMs.max = r(frameMs.max, 4)
            c.readSeconds = r(readSeconds, 6)
            c.peakRSSMiB = r(peakRSSMiB, 2)
            c.replayPeakRSSMiB = r(replayPeakRSSMiB, 2)
            c.flatness = flatness.map {
                var f = $0
                f.firstMs = r(f.firstMs, 4); f.lastMs = r(f.lastMs, 4); f.ratio = r(f.ratio, 3)
                return f
            }
            c.fullRedrawMs = fullRedrawMs.map { Checkpoint(strokes: $0.strokes, ms: r($0.ms, 3)) }
            return c
        }
    }

    func run() throws {
        // The recording is read as it plays: its events, held at once, would take more memory
        // than everything the kiosk draws with.
        let stream = try input.stream()
        var options = ReplayOptions()
        options.perStrokeCost = true
        options.pipeline.prediction = !input.noPrediction
        let replay = Replay(stream: stream, settings: InteractionSettings(screen: size), options: options)

        let clock = ContinuousClock()
        let (finished, stats, wall) = try input.reportingBadLines {
            // The pipeline, its screen and its display are let go of before the full redraws.
            let display = try OffscreenDisplay(size: size)
            let start = clock.now
            let (pipeline, stats) = try replay.run(on: display, screen: ScreenSettings())
            // The time spent reading the file is not the engine's.
            return (pipeline.document.strokes, stats, (clock.now - start).inSeconds - stream.readSeconds)
        }
        let replayPeak = Self.peakRSSMiB()

        let strokeMs = stats.strokeFrameMs ?? []
        let flatness = Self.flatness(strokeMs)

        var redraw: [Checkpoint] = []
        let image = try ImageSurface(size: size, format: .xrgb)
        for n in Self.checkpoints(finished.count) {
            // The median of three runs, so that one hiccup does not make the figure.
            let runs = try (0..<3).map { _ in try FullRedraw.time(Array(finished.prefix(n)), on: image) }
            redraw.append(Checkpoint(strokes: n, ms: runs.sorted()[1] * 1000))
        }

        let report = Report(
            recording: input.file, size: size.description, prediction: !input.noPrediction,
            events: stats.events, samples: stats.samples, strokes: stats.strokes, frames: stats.frames,
            wallSeconds: wall, readSeconds: stream.readSeconds, samplesPerSecond: wall > 0 ? Double(stats.samples) / wall : 0,
            frameMs: stats.renderMs, peakRSSMiB: Self.peakRSSMiB(), replayPeakRSSMiB: replayPeak,
            flatness: flatness, fullRedrawMs: redraw)
        printReadable(report)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(report.rounded()), as: UTF8.self))
    }

    /// Strokes 1–50 against 951–1000 when there are at least 1000, else the first 5 % against
    /// the last 5 % (at least one stroke each).
    static func flatness(_ strokeMs: [Double]) -> Flatness? {
        let n = strokeMs.count
        guard n >= 2 else { return nil }
        let first: ClosedRange<Int>, last: ClosedRange<Int>   // 0-based indices
        if n >= 1000 {
            first = 0...49; last = 950...999
        } else {
            let k = max(1, n / 20)
            first = 0...(k - 1); last = (n - k)...(n - 1)
        }
        func mean(_ r: ClosedRange<Int>) -> Double { strokeMs[r].reduce(0, +) / Double(r.count) }
        let a = mean(first), b = mean(last)
        return Flatness(firstStrokes: [first.lowerBound + 1, first.upperBound + 1],
                        lastStrokes: [last.lowerBound + 1, last.upperBound + 1],
                        firstMs: a, lastMs: b, ratio: a > 0 ? b / a : 0)
    }

    /// 1, 250, 500, 750 and 1000 finished strokes, or the same proportions of fewer.
    static func checkpoints(_ count: Int) -> [Int] {
        guard count > 0 else { return [] }
        if count >= 1000 { return [1, 250, 500, 750, 1000] }
        return Array(Set([1, count / 4, count / 2, count * 3 / 4, count].filter { $0 >= 1 })).sorted()
    }

    /// The process's peak resident set (for the reports of `bench` and `api-bench`).
    static func peakRSSMiB() -> Double { ProcessMemory.peakMiB() }

    private func printReadable(_ r: Report) {
        func f(_ x: Double, _ digits: Int = 2) -> String { String(cFormat: "%.\(digits)f", x) }
        print("inkkiosk bench: \(r.recording) at \(r.size), prediction \(r.prediction ? "on" : "off")")
        print("  events \(r.events), samples \(r.samples), strokes \(r.strokes), frames \(r.frames)")
        print("  frame render cost   median \(f(r.frameMs.median, 3)) ms   p99 \(f(r.frameMs.p99, 3)) ms   max \(f(r.frameMs.max, 3)) ms")
        print("  throughput          \(f(r.samplesPerSecond, 0)) samples/s (\(r.samples) samples in \(f(r.wallSeconds, 3)) s wall;"
              + " reading the file as it played \(f(r.readSeconds, 3)) s more)")
        print("  memory              \(ProcessMemory.peakLine(r.peakRSSMiB)) (ru_maxrss; \(f(r.replayPeakRSSMiB, 1)) MiB when the replay ended)")
        if let fl = r.flatness {
            print("  flatness            strokes \(fl.firstStrokes[0])–\(fl.firstStrokes[1]): \(f(fl.firstMs, 3)) ms/frame,"
                  + " strokes \(fl.lastStrokes[0])–\(fl.lastStrokes[1]): \(f(fl.lastMs, 3)) ms/frame, ratio \(f(fl.ratio, 2))")
        } else {
            print("  flatness            n/a (fewer than 2 strokes)")
        }
        if !r.fullRedrawMs.isEmpty {
            print("  full redraw per frame (for comparison; every finished stroke drawn again):")
            for c in r.fullRedrawMs {
                print("    \(String(repeating: " ", count: max(0, 5 - String(c.strokes).count)))\(c.strokes) strokes  \(f(c.ms, 2)) ms")
            }
        }
    }
}
