// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// Runs a program; returns its exit status and what it printed on stdout and stderr.
@discardableResult
public func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    if let launcher = NativeLauncher.socketPath { return try NativeLauncher.run([executable] + arguments, socketPath: launcher) }
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

/// Under qemu-user a spawn forks the whole emulator, and with the test runner's threads the copy
/// can deadlock before its exec; the arm64 script's launcher (scripts/arm64/launcher.py) starts
/// the program natively instead, one request per connection on a unix socket.
enum NativeLauncher {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let socketPath = getenv("INKKIOSK_TESTS_LAUNCHER").map { String(cString: $0) }

    static func run(_ argv: [String], socketPath: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let request: [String: Any] = ["argv": argv, "cwd": FileManager.default.currentDirectoryPath]
        var line = try JSONSerialization.data(withJSONObject: request)
        line.append(0x0A)
        let answer = try exchange(line, socketPath: socketPath)
        guard let reply = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw Failure(description: "launcher \(socketPath): an answer that is not a JSON object")
        }
        if let error = reply["error"] as? String { throw Failure(description: "launcher could not start \(argv[0]): \(error)") }
        guard let status = reply["status"] as? Int, let out = reply["stdout"] as? String, let err = reply["stderr"] as? String,
              let outBytes = Data(base64Encoded: out), let errBytes = Data(base64Encoded: err)
        else { throw Failure(description: "launcher \(socketPath): an answer without status, stdout and stderr") }
        return (Int32(status), String(decoding: outBytes, as: UTF8.self), String(decoding: errBytes, as: UTF8.self))
    }

    /// Sends the request and reads the answer until the launcher closes the connection.
    private static func exchange(_ request: Data, socketPath: String) throws -> Data {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "launcher path too long: \(socketPath)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect \(socketPath): errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { write(fd, $0.baseAddress! + sent, request.count - sent) }
            guard n > 0 else { throw Failure(description: "write \(socketPath): errno \(errno)") }
            sent += n
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return answer }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "read \(socketPath): errno \(errno)")
            }
            answer.append(contentsOf: buffer[0..<n])
        }
    }
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
