// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

/// A worksheet's file opened as what it is and nothing else. A teacher's USB stick is not to be
/// trusted: a link on it could open any PDF the kiosk can read (another pupil's saved notebook),
/// a FIFO would block the reader for ever, a device could be anything, and a name with a line
/// break or other control characters would reach the log and the strikes file. Such files are
/// listed with their reason and never opened: the file is looked at with `lstat` (a link is not
/// followed), opened with `O_NOFOLLOW` (and `O_NONBLOCK`: a FIFO put there meanwhile does not
/// block the open), and the descriptor opened must be the file looked at (`fstat`: the same
/// device and inode, a regular file), so nothing can be swapped between the look and the read.
/// Every read of a worksheet (poppler, the SHA-256, a copy from the stick) goes through it.
enum WorksheetFile {
    /// Why a file cannot be a worksheet, by what `lstat` says it is (nil: a regular file).
    static func kindProblem(_ mode: mode_t) -> (kind: WorksheetError.Kind, detail: String)? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return (.link, "a link, not a file: refused")
        case S_IFIFO: return (.notAFile, "a pipe (FIFO), not a file: refused")
        case S_IFCHR, S_IFBLK: return (.notAFile, "a device, not a file: refused")
        case S_IFSOCK: return (.notAFile, "a socket, not a file: refused")
        case S_IFDIR: return (.notAFile, "a folder, not a file: refused")
        default: return (.notAFile, "not a file: refused")
        }
    }

    /// Whether `scalar` is a control character: C0 (line breaks and tabs among them), DEL, C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Why the file's name (its last part) is refused: it has control characters (nil: it has none).
    static func nameProblem(_ path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard name.unicodeScalars.contains(where: isControl) else { return nil }
        return "its name has control characters in it (\(printable(name))): refused"
    }

    /// `text` as a log line or a screen may show it: each control character written as an escape
    /// (`\n`, `\t`, `\u{1B}`), so a file's name cannot start a line of its own.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for s in text.unicodeScalars {
            switch s {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(s): out += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(s)
            }
        }
        return out
    }

    /// What `lstat` says of `path`, checked: a regular file with a name without control characters.
    static func check(_ path: String) throws -> stat {
        if let why = nameProblem(path) { throw WorksheetError(kind: .badName, path: path, detail: why) }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // A name that is not UTF-8 comes out of the folder's listing with U+FFFD for its bad bytes: no such file.
            if errno == ENOENT && path.split(separator: "/").last?.unicodeScalars.contains("\u{FFFD}") == true {
                throw WorksheetError(kind: .badName, path: path, detail: "its name is not UTF-8 text: refused")
            }
            throw cannotRead(path, "lstat")
        }
        if let (kind, why) = kindProblem(info.st_mode) { throw WorksheetError(kind: kind, path: path, detail: why) }
        return info
    }

    /// `path` opened for reading (close-on-exec), checked as `check` does, and the descriptor
    /// known to be that very file. The caller closes it. (`afterLook`: tests change the file there.)
    static func open(_ path: String, afterLook: () -> Void = {}) throws -> (fd: Int32, info: stat) {
        let looked = try check(path)
        afterLook()
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            // ELOOP: a link put in its place since the look.
            if errno == ELOOP { throw WorksheetError(kind: .link, path: path, detail: "a link, not a file: refused") }
            throw cannotRead(path, "open")
        }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else { let e = cannotRead(path, "fstat"); close(fd); throw e }
        if let (kind, why) = kindProblem(opened.st_mode) { close(fd); throw WorksheetError(kind: kind, path: path, detail: why) }
        guard opened.st_dev == looked.st_dev && opened.st_ino == looked.st_ino else {
            close(fd)
            throw WorksheetError(kind: .unreadable, path: path, detail: "the file was replaced while it was opened: refused")
        }
        // Reads of a regular file never wait anyway; poppler gets a descriptor like any other.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return (fd, opened)
    }

    /// The error of a failed system call on `path`, with its errno.
    static func cannotRead(_ path: String, _ operation: String = "open") -> WorksheetError {
        let failure = SystemCallError(operation, path: path)
        return WorksheetError(kind: .unreadable, path: path, detail: "cannot read it: \(Errno.describe(failure.errno))", cause: failure)
    }
}
