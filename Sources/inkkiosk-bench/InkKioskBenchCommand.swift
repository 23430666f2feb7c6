// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine

/// The benchmarks: built with the kiosk (`make release`) from the same modules, kept out of the
/// `inkkiosk` that is shipped (the Debian packages, the appliance carry only that one).
@main
struct InkKioskBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inkkiosk-bench",
        abstract: "Measure inkkiosk: frame cost, worksheets, the signature API under load, the PDF reader, a simulated day, a class handing in at once.",
        version: InkKioskVersion.string,
        subcommands: [BenchCommand.self, WorksheetBenchCommand.self, APIBenchCommand.self, PDFBenchCommand.self, SoakCommand.self, HandInLoadCommand.self])
}
