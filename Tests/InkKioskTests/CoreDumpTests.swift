// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import InkTestSupport

/// The kiosk holds signatures, pupils' work and the API's token: `inkkiosk run` makes itself
/// non-dumpable and its core size limit 0 before it reads its config. Seen from outside, on the
/// real binary, while it waits to read its key file (a FIFO nobody writes to yet).
@Suite(.serialized) struct CoreDumpsOff {
    /// The kernel's view: the files in /proc/PID belong to the process's user while it is
    /// dumpable, to root once it is not (proc(5); the directory itself keeps its user).
    private func owner(_ pid: Int32) -> uid_t? {
        var info = stat()
        return stat("/proc/\(pid)/environ", &info) == 0 ? info.st_uid : nil
    }

    private func coreLimit(_ pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).joined(separator: " ") }
    }

    /// The process's arguments: which program it runs now (prlimit and setpriv exec it in
    /// place; under qemu-user, binfmt puts the interpreter first).
    private func arguments(_ pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    private func waitFor(seconds: Double = 20, _ done: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if done() { return true }
            usleep(10_000)
        }
        return done()
    }

    @Test(.disabled(if: Fixtures.emulated, "runs the kiosk as another user, whom qemu-aarch64's library prefix does not follow; x86 proves it natively"))
    func theKioskCannotDumpCoreNorBeReadByItsOwnUser() throws {
        let prlimit = try #require(which("prlimit"), "prlimit (util-linux) is needed to start the kiosk with a core size limit")
        // As root the kiosk runs as nobody here: the owner of /proc/PID's files then tells dumpable (its user) from not (root).
        let root = getuid() == 0
        let setpriv = root ? try #require(which("setpriv"), "setpriv (util-linux) is needed to run the kiosk as another user") : ""
        let user: uid_t = root ? 65534 : getuid()
        // A limit that allows a core file (as far as this user may), so that a 0 seen later is the kiosk's own doing.
        var mine = rlimit()
        _ = getrlimit(Int32(RLIMIT_CORE.rawValue), &mine)
        let allowed = root ? 4096 : min(mine.rlim_max, 4096)
        var template = Array("/tmp/inkkiosk-dumpable-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } })
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)
        let key = "\(dir)/signature.pub", config = "\(dir)/kiosk.toml"
        #expect(mkfifo(key, 0o666) == 0)
        chmod(key, 0o666)
        try "[signature]\nencrypt_to = \"\(key)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        let launcher = (allowed > 0 ? [prlimit, "--core=\(allowed):\(allowed)", "--"] : [])
            + (root ? [setpriv, "--reuid=\(user)", "--regid=\(user)", "--clear-groups"] : [])
        func process(_ argv: [String]) -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: argv[0])
            p.arguments = Array(argv.dropFirst())
            return p
        }

        // The control, started the same way: a process that does nothing about it is its user's.
        let control = process(launcher + ["/bin/sleep", "30"])
        try control.run()
        defer { kill(control.processIdentifier, SIGKILL); control.waitUntilExit() }
        #expect(waitFor { arguments(control.processIdentifier).first == "/bin/sleep" && owner(control.processIdentifier) == user },
                "a dumpable process's /proc files are its user's (owner \(owner(control.processIdentifier).map(String.init) ?? "?"))")
        #expect(coreLimit(control.processIdentifier) == "\(allowed) \(allowed)")

        let kiosk = process(launcher + [Fixtures.inkkioskBinary, "run", "--config", config, "--card", "/nonexistent/card0"])
        let errors = Pipe()
        kiosk.standardError = errors
        try kiosk.run()
        let pid = kiosk.processIdentifier
        defer {
            // Whatever happened above: a writer for the FIFO lets it go on, and end.
            let fd = open(key, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            if kiosk.isRunning { kill(pid, SIGKILL) }
            kiosk.waitUntilExit()
        }
        // It runs (the launchers are gone), and, while it waits for the key, its /proc files
        // turn root's: it made itself non-dumpable. Without the prctl they stay the user's.
        func started() -> Bool {
            let a = arguments(pid)
            return a.contains(Fixtures.inkkioskBinary) && a.first != prlimit && a.first != setpriv
        }
        let turned = waitFor { started() && owner(pid) != user && kiosk.isRunning }
        #expect(turned, "the kiosk's /proc/\(pid)/environ is owned by \(owner(pid).map(String.init) ?? "?") (its user: \(user))")
        #expect(kiosk.isRunning, "still waiting for its key file")
        #expect(coreLimit(pid) == "0 0", "core size limit: \(coreLimit(pid) ?? "?")")

        // Let it read the key: it names the FIFO (not a key file) and stops. It may not have
        // reached the FIFO yet (a writer's non-blocking open fails until a reader has it open):
        // wait for that, and never leave it blocked there (the suite would wait for it forever).
        var fd: Int32 = -1
        let opened = waitFor { fd = open(key, O_WRONLY | O_NONBLOCK); return fd >= 0 }
        #expect(opened, "the kiosk opens the FIFO for reading")
        if fd >= 0 { close(fd) } else { kiosk.terminate() }
        kiosk.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(kiosk.terminationStatus == 1 && said.contains("\(config):2: signature.encrypt_to: \(key): not a regular file"), "\(said)")
    }
}
