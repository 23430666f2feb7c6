// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkConfig

/// `inkkiosk config --reference`: every table and key of the config file, printed from the
/// definitions the reader checks files against (docs/CONFIGURATION.md is this output).
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Describe the configuration file: with --reference, every key, its type, allowed values, default and meaning (Markdown).")

    @Flag(help: "Print the reference of every section and key as Markdown.")
    var reference = false

    func run() throws {
        guard reference else {
            throw ValidationError("say what to describe: --reference (to check a file: inkkiosk check-config FILE)")
        }
        print(ConfigReference.markdown(), terminator: "")
    }
}
