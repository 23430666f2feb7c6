import ArgumentParser
import InkLoop

extension CleanExit {
    /// An error message on stderr with a non-zero exit status.
    public static func message(_ text: String, code: Int32) -> ExitCode {
        writeStandardError("inkkiosk: error: \(text)\n")
        return ExitCode(code)
    }
}
