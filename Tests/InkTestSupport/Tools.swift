import Foundation
import Glibc

/// Runs a program; returns its exit status and what it printed on stdout and stderr.
@discardableResult
public func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    // Both pipes read as the program writes: a program that fills its stderr pipe while the
    // test reads only stdout would wait for ever.
    let errors = PipeContents()
    let thread = Thread { errors.set(err.fileHandleForReading.readDataToEndOfFile()) }
    thread.start()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let e = errors.wait()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// What a reading thread got from a pipe, handed over once.
private final class PipeContents: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()
    func set(_ d: Data) { data = d; done.signal() }
    func wait() -> Data { done.wait(); return data }
}

/// Where a system tool is installed; nil when it is not.
public func which(_ tool: String) -> String? {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(tool)") {
        return "\(dir)/\(tool)"
    }
    return nil
}

/// The permission bits of `path` (lstat: a symlink is not followed).
public func mode(_ path: String) -> Int {
    var info = stat()
    return lstat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
}
