// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Glibc
import InkLog
import InkCore
import InkLoop
import InkPDFHelper

/// The PDF helper: started by the kiosk (never by hand) with its socket as descriptor 3.
/// `--try` enters the same cage and attempts one thing it must not do (the tests' proof).
struct PDFHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdf-helper",
        abstract: "The caged process that opens and draws PDFs for the kiosk (started by it).",
        shouldDisplay: false)

    @Option(name: .customLong("memory-mb"), help: "Its address space, MiB.")
    var memoryMB = 512

    @Option(name: .customLong("cpu-seconds"), help: "Its CPU time, seconds.")
    var cpuSeconds = 600

    @Option(name: .customLong("file-mb"), help: "The largest file it may write, MiB (RLIMIT_FSIZE).")
    var fileMB = 256

    @Option(name: .customLong("uid"), help: "The user it becomes when started as root.")
    var uid: UInt32 = HelperUser.nobody.uid

    @Option(name: .customLong("gid"), help: "The group it becomes when started as root.")
    var gid: UInt32 = HelperUser.nobody.gid

    @Option(name: .customLong("without-landlock"), help: "On a kernel without Landlock, as the kiosk's own user: refuse or allow.")
    var withoutLandlock = WithoutLandlock.refuse

    @Flag(name: .customLong("seccomp-if-available"), help: "Run without a seccomp filter where the system refuses one (user-mode emulation).")
    var seccompIfAvailable = false

    @Flag(name: .customLong("test-without-landlock"), help: "Tests only: act as if the kernel had no Landlock.")
    var testWithoutLandlock = false

    @Option(name: .customLong("try"), help: "Enter the cage, then try one forbidden thing: \(CageProbe.allCases.map(\.rawValue).joined(separator: ", ")).")
    var probe: CageProbe?

    func run() throws {
        // A crash ends it with its own signal, as the kernel delivered it: no crash handler of the
        // runtime's (the Swift backtracer would start a process, which the cage forbids).
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(s, SIG_DFL) }
        let cage = Cage(memoryMB: memoryMB, cpuSeconds: cpuSeconds, fileMB: fileMB, user: HelperUser(uid: uid, gid: gid),
                        withoutLandlock: withoutLandlock, pretendNoLandlock: testWithoutLandlock || probe == .noLandlock,
                        requireSeccomp: !seccompIfAvailable)
        guard let probe else { HelperServer.run(channelFD: 3, cage: cage) }
        let startedAs = (uid: getuid(), gid: getgid())
        try probe.prepare()
        let how: String
        do { how = try cage.enter() } catch let refusal as Cage.Refusal {
            print("\(probe.rawValue): refused to run: \(refusal)")
            throw ExitCode(0)
        }
        writeStandardError("caged: \(how)\n")
        let outcome = probe.attempt(cage: cage, startedAs: startedAs)
        print("\(probe.rawValue): \(outcome)")
        throw ExitCode(outcome.hasPrefix("allowed") ? 1 : 0)
    }
}

extension WithoutLandlock: ExpressibleByArgument {}

extension CageProbe: ExpressibleByArgument {}
