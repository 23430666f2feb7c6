// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

extension KernelCommandLine {
    /// This machine's, from /proc/cmdline; empty when it cannot be read (no /proc: a chroot, a
    /// sandbox), which reads as "not booted from the disk image".
    public static func ofThisMachine(path: String = "/proc/cmdline") -> KernelCommandLine {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return KernelCommandLine("") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // The kernel caps it (COMMAND_LINE_SIZE: 2048 on x86, 4096 on arm64); 64 KiB bounds a strange file.
        while bytes.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        return KernelCommandLine(String(decoding: bytes, as: UTF8.self))
    }

    /// The booted image as `--version` and the log say it: nil when not booted from one, or
    /// (with a warning for the log) when the command line names a slot no image writes.
    public func bootedImage() -> (image: BootedImage?, warning: String?) {
        do { return (try BootedImage(self), nil) } catch { return (nil, error.description) }
    }
}
