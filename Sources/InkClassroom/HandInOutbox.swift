// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// One file of a hand-in: where it waits on the tablet, the name it gets on the server, its digest
/// (what tells our own earlier upload from somebody else's file after a lost answer).
public struct HandInFile: Codable, Sendable, Equatable {
    /// The file's name inside the item's folder.
    public var local: String
    /// Its name in the class's hand-in folder ("tablet-07-Fractions.pdf").
    public var remote: String
    public var sha256: String
    public var bytes: Int64
}

/// A hand-in waiting in the outbox: made whole by the kiosk's save thread (files synced, then
/// this record, then the folder renamed into place), sent and removed by the classroom agent.
public struct HandInItem: Codable, Sendable, Equatable {
    /// Sorts by age: when it was put in the outbox (nanoseconds since 1970), then a random tail.
    public var id: String
    /// The worksheet it answers ("Fractions"), as the pupil sees it.
    public var title: String
    /// Seconds since 1970 when the pupil pressed Hand in (a late upload still counts from here).
    public var handedIn: Int64
    public var files: [HandInFile]
}

/// The durable outbox of hand-ins: one folder per item under `directory`, nothing in it ever
/// half-written (a folder is renamed into place only when it and everything in it are synced).
/// It holds at most `maxItems` items and `maxBytes` bytes; a hand-in beyond either is refused
/// with the reason, never one already waiting dropped.
public struct HandInOutbox: Sendable {
    public let directory: String
    public let maxItems: Int
    public let maxBytes: Int64
    static let recordName = "handin.json"

    public init(directory: String, maxItems: Int, maxBytes: Int64) {
        self.directory = directory; self.maxItems = maxItems; self.maxBytes = maxBytes
    }

    public struct Refused: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Puts a hand-in in the outbox: each `(remote name, file on the tablet)` copied in and synced.
    /// Older items for the same title still waiting are superseded (removed) once the new one is
    /// in place: only a pupil's latest hand-in of a worksheet goes out.
    @discardableResult
    public func enqueue(title: String, handedIn: Int64, files: [(remote: String, source: String)]) throws -> HandInItem {
        try DurableFile.prepareDirectory(directory)
        let waiting = try items()
        guard waiting.count < maxItems else {
            throw Refused(description: "the outbox holds \(waiting.count) hand-ins already (at most \(maxItems)): connect the tablet to the network first")
        }
        var random = SystemRandomNumberGenerator()
        // Sorted by when it was made (nanoseconds), whatever the clock said to the pupil.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let made = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let id = Self.padded(String(max(made, 0)), to: 20) + "-" + hexString(withUnsafeBytes(of: UInt32.random(in: 0...UInt32.max, using: &random)) { Array($0) })
        let staging = "\(directory)/.\(id).new"
        try? removeTree(staging)
        guard mkdir(staging, 0o700) == 0 else { throw SystemCallError("create", path: staging) }
        do {
            var copied: [HandInFile] = []
            var total = waiting.reduce(0) { $0 + $1.files.reduce(0) { $0 + $1.bytes } }
            for (index, file) in files.enumerated() {
                let data = try Data(contentsOf: URL(fileURLWithPath: file.source))
                total += Int64(data.count)
                guard total <= maxBytes else {
                    throw Refused(description: "the outbox would hold \(total) bytes (at most \(maxBytes)): connect the tablet to the network first")
                }
                let local = Self.padded(String(index), to: 3) + "-" + Self.safeLocalName(file.remote)
                try DurableFile.create("\(staging)/\(local)", data, mode: 0o600)
                copied.append(HandInFile(local: local, remote: file.remote, sha256: Self.sha256(data), bytes: Int64(data.count)))
            }
            let item = HandInItem(id: id, title: title, handedIn: handedIn, files: copied)
            try DurableFile.create("\(staging)/\(Self.recordName)", try JSONEncoder().encode(item), mode: 0o600)
            try DurableFile.sync(staging)
            let final = "\(directory)/\(id)"
            guard rename(staging, final) == 0 else { throw SystemCallError("rename \(staging) to", path: final) }
            try DurableFile.sync(directory)
            for older in waiting where older.title == title { try remove(older) }
            return item
        } catch {
            try? removeTree(staging)
            throw error
        }
    }

    /// The items waiting, oldest first. A folder without a readable record (a cut that came
    /// before the rename cannot leave one; a hand-edited one could) is skipped and named in `damaged`.
    public func items() throws -> [HandInItem] {
        try scan().items
    }

    public func scan() throws -> (items: [HandInItem], damaged: [String]) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }
        } catch {
            if access(directory, F_OK) != 0 && errno == ENOENT { return ([], []) }
            throw SystemCallError("read the folder", path: directory)
        }
        var items: [HandInItem] = []
        var damaged: [String] = []
        for name in names.sorted() {
            let record = "\(directory)/\(name)/\(Self.recordName)"
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: record)),
                  let item = try? JSONDecoder().decode(HandInItem.self, from: data), item.id == name else {
                damaged.append(name)
                continue
            }
            items.append(item)
        }
        return (items, damaged)
    }

    /// The path of one of an item's files.
    public func path(of file: HandInFile, in item: HandInItem) -> String { "\(directory)/\(item.id)/\(file.local)" }

    /// Removes an item and its files (sent, or superseded): nothing about a pupil stays longer than needed.
    public func remove(_ item: HandInItem) throws {
        try removeTree("\(directory)/\(item.id)")
        try DurableFile.sync(directory)
    }

    public static func sha256(_ data: some DataProtocol) -> String {
        hexString(SHA256.hash(data: data))
    }

    static func padded(_ digits: String, to width: Int) -> String {
        String(repeating: "0", count: max(width - digits.count, 0)) + digits
    }

    /// A remote name as a file name on the tablet: its letters and digits, `.-_`, the rest `_`.
    static func safeLocalName(_ remote: String) -> String {
        String(remote.unicodeScalars.prefix(120).map { scalar -> Character in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        })
    }

    private func removeTree(_ path: String) throws {
        guard access(path, F_OK) == 0 else { return }
        try FileManager.default.removeItem(atPath: path)
    }
}
