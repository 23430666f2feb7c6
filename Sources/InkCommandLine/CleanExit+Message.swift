// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Logging

extension CleanExit {
    /// An error message (the log's, at level error: "<3>" in the journal) with a non-zero exit status.
    public static func message(_ text: String, code: Int32) -> ExitCode {
        Logger(label: "inkkiosk").error("\(text)")
        return ExitCode(code)
    }
}
