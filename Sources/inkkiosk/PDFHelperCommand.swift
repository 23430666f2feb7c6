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

    @Flag(name: .customLong("seccomp-if-available"), help: "Run without a seccomp filter where the system refuses one (user-mode emulation).")
    var seccompIfAvailable = false

    @Option(name: .customLong("try"), help: "Enter the cage, then try one forbidden thing: \(CageProbe.allCases.map(\.rawValue).joined(separator: ", ")).")
    var probe: CageProbe?

    func run() throws {
        // A crash ends it with its own signal, as the kernel delivered it: no crash handler of the
        // runtime's (the Swift backtracer would start a process, which the cage forbids).
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(s, SIG_DFL) }
        let cage = Cage(memoryMB: memoryMB, cpuSeconds: cpuSeconds, requireSeccomp: !seccompIfAvailable)
        guard let probe else { HelperServer.run(channelFD: 3, cage: cage) }
        let how = try cage.enter()
        writeStandardError("caged: \(how)\n")
        let outcome = probe.attempt()
        print("\(probe.rawValue): \(outcome)")
        throw ExitCode(outcome.hasPrefix("allowed") ? 1 : 0)
    }
}

/// What the cage must stop, one at a time: each prints how it was refused (or dies of SIGSYS).
enum CageProbe: String, CaseIterable, ExpressibleByArgument {
    case readOutside = "read-outside", writeFile = "write-file", socket, exec, signalParent = "signal-parent", mapExecutable = "map-executable",
         allocate

    func attempt() -> String {
        func refused(_ rc: Int) -> String { rc >= 0 ? "allowed" : "refused: \(Errno.describe(errno))" }
        switch self {
        case .readOutside:
            // A file that exists on any system (stat is not restricted, opening it is).
            var info = stat()
            let candidates: [String] = ["/etc/passwd", "/init", "/proc/self/status"]
            let file = candidates.first { stat($0, &info) == 0 } ?? "/proc/self/status"
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            defer { if fd >= 0 { close(fd) } }
            return "\(file) " + refused(Int(fd))
        case .writeFile:
            let fd = open("/tmp/inkkiosk-cage-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            defer { if fd >= 0 { close(fd); unlink("/tmp/inkkiosk-cage-probe") } }
            return refused(Int(fd))
        case .socket: return refused(Int(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)))
        case .exec:
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
            return refused(Int(execv("/bin/true", argv)))
        case .signalParent: return refused(Int(kill(getppid(), SIGTERM)))
        case .mapExecutable:
            let p = mmap(nil, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            return p == MAP_FAILED ? refused(-1) : "allowed"
        case .allocate:
            // More than the address space allowed: the mapping (what malloc asks the kernel for a
            // block this big) must fail, not take the board's memory. mmap, not malloc: an
            // optimiser may drop an allocation nothing reads.
            let bytes = 4 << 30
            let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard p == MAP_FAILED else { munmap(p, bytes); return "allowed" }
            return "refused: 4 GiB cannot be mapped: \(Errno.describe(errno))"
        }
    }
}
