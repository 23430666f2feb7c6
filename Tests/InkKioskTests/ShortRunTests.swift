// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkTestSupport

/// `inkkiosk run --config FILE [--journal FILE] [--require-console]`, the appliance's and the systemd unit's command
/// line, is parsed on a view of those options (InkCommandLine's ShortRunLine); every other command line by the whole `run`.
/// Both must behave as one command.
@Suite struct ShortRunCommandLine {
    var binary: String { Fixtures.inkkioskBinary }

    @Test func theShortAndTheWholeCommandLineRefuseABadConfigAlike() throws {
        let dir = try Fixtures.outputDirectory("short-run")
        let bad = "\(dir)/bad.toml"
        try "[display]\nrotation = 45\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let short = try run(binary, ["run", "--config", bad, "--journal", "\(dir)/journal.inkj"])
        let equals = try run(binary, ["run", "--config=\(bad)"])
        // --seat takes the whole command's way; the config is read before any device is touched.
        let whole = try run(binary, ["run", "--config", bad, "--seat", "seat9"])
        for result in [short, equals, whole] {
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("not starting") && result.stderr.contains("\(bad):2: display.rotation"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/journal.inkj"), "no journal is made for a kiosk that does not start")
    }

    @Test func aMistakeOrHelpOnTheShortCommandLineIsTheWholeCommandsAnswer() throws {
        let missing = try run(binary, ["run", "--config"])
        #expect(missing.status != 0 && missing.stderr.contains("--config"), "\(missing.stderr)")
        let unknown = try run(binary, ["run", "--config", "/etc/inkkiosk/inkkiosk.toml", "--no-such-flag"])
        #expect(unknown.status != 0 && unknown.stderr.contains("--no-such-flag"), "\(unknown.stderr)")
        let help = try run(binary, ["run", "--config", "/etc/inkkiosk/inkkiosk.toml", "--help"])
        // The whole command's help: every option, not the short view's two.
        #expect(help.status == 0 && help.stdout.contains("--service-keys") && help.stdout.contains("--pressure-curve"), "\(help.stdout)")
    }
}
