// SPDX-License-Identifier: Apache-2.0
// libFuzzer target, differential: every PDF our reader takes must read as qpdf and poppler read
// it (the pages, their content streams and resources, boxes, rotation; the signature fields),
// and qpdf must find nothing to repair in it. Anything else is a crash with both readings
// printed: a file the kiosk would show one way and sign another. The reader may refuse anything.
import FoundationEssentials
import Glibc
import InkDocument
import InkDocumentTestSupport

/// Where the input is written for qpdf and pdfinfo (one process, one file).
private let inputPath = "/tmp/inkkiosk-fuzz-pdf-reading-\(getpid()).pdf"
private let asSignedPath = "/tmp/inkkiosk-fuzz-pdf-reading-\(getpid()).as-signed.pdf"

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzPDFReading(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzPDFReading(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A document without pages is refused by the kiosk too (422).
    guard let document = try? PDFDocument(bytes: bytes), let ours = try? DocumentReading.ours(document), !ours.pages.isEmpty else { return 0 }
    guard write(bytes, to: inputPath) else { fatalError("cannot write \(inputPath)") }
    var problems: [String] = []
    let qpdf = run("/usr/bin/qpdf", QPDFReading.arguments + [inputPath])
    if qpdf.status != 0 || !qpdf.stderr.isEmpty {
        problems.append("qpdf (exit \(qpdf.status)) had to repair what our reader took: \(String(decoding: qpdf.stderr.prefix(400), as: UTF8.self))")
    }
    if qpdf.status == 0 || qpdf.status == 3 {
        do {
            problems += DocumentReading.differences(ours, try QPDFReading.reading(json: qpdf.stdout))
        } catch {
            problems.append("\(error)")
        }
    }
    // poppler reads it as the kiosk shows it: as its signed copy will read (an end of line
    // appended: a linearized file's hints, void after an update, are not used).
    guard write(bytes + [0x0A], to: asSignedPath) else { fatalError("cannot write \(asSignedPath)") }
    let pdfinfo = run("/usr/bin/pdfinfo", PopplerPages.arguments(last: ours.pages.count) + [asSignedPath])
    if !pdfinfo.stderr.isEmpty {
        problems.append("poppler had to repair what our reader took: \(String(decoding: pdfinfo.stderr.prefix(400), as: UTF8.self))")
    }
    if let poppler = PopplerPages(pdfinfo: String(decoding: pdfinfo.stdout, as: UTF8.self)) {
        problems += poppler.differences(from: ours)
    } else {
        problems.append("pdfinfo could not read it (exit \(pdfinfo.status))")
    }
    if !problems.isEmpty {
        fatalError("our reader took a file that reads differently elsewhere:\n" + problems.joined(separator: "\n"))
    }
    return 0
}

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    for tool in ["/usr/bin/qpdf", "/usr/bin/pdfinfo"] where access(tool, X_OK) != 0 {
        fatalError("fuzz-pdf-reading compares with \(tool), which is missing (scripts/install-deps.sh installs it)")
    }
    return 0
}
#endif

private func write(_ bytes: [UInt8], to path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Runs `path` with `arguments`, its output and errors into files (read back whole), and waits.
private func run(_ path: String, _ arguments: [String]) -> (status: Int32, stdout: [UInt8], stderr: [UInt8]) {
    let out = inputPath + ".out", err = inputPath + ".err"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { fatalError("cannot start \(path)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    func contents(_ file: String) -> [UInt8] {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            result += chunk[0..<n]
        }
        return result
    }
    // WIFEXITED / WEXITSTATUS, written out (macros).
    let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exit, contents(out), contents(err))
}
