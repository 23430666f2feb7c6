// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

extension LibinputQuirks {
    /// Where libinput looks (Debian's build): its data files, then the machine's own overrides.
    public static let dataDirectory = "/usr/share/libinput"
    public static let overrideFile = "/etc/libinput/local-overrides.quirks"

    /// What libinput reads in this environment: `LIBINPUT_QUIRKS_DIR` replaces the data
    /// directory and then no override file is read.
    public static func installed() -> LibinputQuirks {
        if let dir = getenv("LIBINPUT_QUIRKS_DIR") {
            return load(directory: String(cString: dir), overrideFile: nil)
        }
        return load(directory: dataDirectory, overrideFile: overrideFile)
    }

    /// `directory`'s `*.quirks` in libinput's order, then `overrideFile` (last, so it wins).
    /// A missing override file is normal; a missing or empty directory makes libinput load none.
    public static func load(directory: String, overrideFile: String?) -> LibinputQuirks {
        var quirks = LibinputQuirks()
        let names = QuirksDirectory.fileNames(in: directory)
        if names.isEmpty {
            quirks.addProblem(QuirkProblem(location: QuirkLocation(file: directory, line: 0),
                                           message: "no *.quirks files"))
        }
        for name in names {
            quirks.read(file: directory + "/" + name, missingIsFine: false)
        }
        if let overrideFile { quirks.read(file: overrideFile, missingIsFine: true) }
        return quirks
    }

    private mutating func read(file path: String, missingIsFine: Bool) {
        switch SmallFile.read(path) {
        case .success(let bytes):
            add(file: path, text: String(decoding: bytes, as: UTF8.self))
        case .failure(let error):
            if missingIsFine && error.code == ENOENT { return }
            addProblem(QuirkProblem(location: QuirkLocation(file: path, line: 0),
                                    message: "cannot read: \(error)"))
        }
    }
}

/// The quirks files of a directory, in the order libinput's scandir(…, versionsort) gives.
enum QuirksDirectory {
    static func fileNames(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(".quirks") { names.append(name) }
        }
        return names.sorted(by: versionOrder)
    }

    /// versionsort(3) for the names libinput ships: runs of digits compare by their value, so
    /// `9-x.quirks` comes before `10-x.quirks`; everything else byte by byte.
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                let runX = digitRun(x, from: i), runY = digitRun(y, from: j)
                let valueX = runX.drop { $0 == UInt8(ascii: "0") }, valueY = runY.drop { $0 == UInt8(ascii: "0") }
                if valueX.count != valueY.count { return valueX.count < valueY.count }
                if valueX != valueY { return valueX.lexicographicallyPrecedes(valueY) }
                i += runX.count
                j += runY.count
            } else {
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1
                j += 1
            }
        }
        return x.count - i < y.count - j
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func digitRun(_ bytes: [UInt8], from start: Int) -> ArraySlice<UInt8> {
        var end = start
        while end < bytes.count && isDigit(bytes[end]) { end += 1 }
        return bytes[start..<end]
    }
}

/// Whole small files (quirks files, sysfs attributes) through read(2).
enum SmallFile {
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { Errno.describe(code) }
    }

    static func read(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(code: errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(code: errno))
            }
            if n == 0 { return .success(bytes) }
            bytes += chunk[..<n]
        }
    }

    /// A sysfs attribute as text without its trailing newline; nil when absent or empty.
    static func text(_ path: String) -> String? {
        guard case .success(let bytes) = read(path) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        return text.isEmpty ? nil : text
    }
}
