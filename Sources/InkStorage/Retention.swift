// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// How long written files stay in a directory (the outbox, the save directory): at most
/// `keep` sets of files, none older than `maxAgeDays`. A set is one capture's or one save's
/// files, by name: `NAME.png`, `NAME.json`, `NAME-page2.png` and `NAME.pdf` go together.
/// A directory is a set of its own (a signature capture's `NAME/`, its files inside).
/// 0 means no limit. Pruning removes the oldest sets first, never hidden (temporary) files.
public struct Retention: Sendable, Equatable {
    public var keep: Int
    public var maxAgeDays: Double

    public init(keep: Int, maxAgeDays: Double) { self.keep = keep; self.maxAgeDays = maxAgeDays }

    /// The set a file belongs to.
    static func setName(_ file: String) -> String {
        var stem = file.split(separator: ".", maxSplits: 1).first.map(String.init) ?? file
        // A trailing "-page" and digits (what `-page[0-9]+$` matched).
        let digits = stem.reversed().prefix { $0.isASCII && $0.isNumber }.count
        if digits > 0, stem.dropLast(digits).hasSuffix("-page") { stem.removeLast(digits + 5) }
        return stem
    }

    /// The sets to remove, oldest first, given each set's newest modification time.
    func expired(_ sets: [String: Date], now: Date) -> [String] {
        let newestFirst = sets.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key }
        var out: [String] = []
        for (i, (name, time)) in newestFirst.enumerated() {
            let tooMany = keep > 0 && i >= keep
            let tooOld = maxAgeDays > 0 && now.timeIntervalSince(time) > maxAgeDays * 86_400
            if tooMany || tooOld { out.append(name) }
        }
        return out.reversed()
    }

    /// Prunes `directory`; what it did, as a line for the log (nil: nothing to say).
    public func pruneNote(_ directory: String, what: String) -> LogNote? {
        do {
            let pruned = try prune(directory)
            return pruned.isEmpty ? nil : .info("\(directory): removed \(pruned.count) old \(what) (\(pruned.joined(separator: ", ")))")
        } catch {
            return .warning("cannot remove old \(what) from \(directory): \(error)")
        }
    }

    /// Removes the expired sets' files from `directory`; returns the sets removed.
    @discardableResult
    public func prune(_ directory: String, now: Date = Date()) throws -> [String] {
        guard keep > 0 || maxAgeDays > 0 else { return [] }
        let fm = FileManager.default
        let files = try fm.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }
        var sets: [String: Date] = [:], members: [String: [String]] = [:], directories: Set<String> = []
        for file in files {
            guard let attributes = try? fm.attributesOfItem(atPath: "\(directory)/\(file)"),
                  let time = attributes[.modificationDate] as? Date else { continue }
            switch attributes[.type] as? FileAttributeType {
            case .typeRegular:
                let set = Self.setName(file)
                sets[set] = max(sets[set] ?? .distantPast, time)
                members[set, default: []].append(file)
            case .typeDirectory:
                sets[file] = max(sets[file] ?? .distantPast, time)
                directories.insert(file)
            default:
                continue
            }
        }
        let expired = expired(sets, now: now)
        for set in expired {
            // The JSON (a capture's "complete" mark) goes first: a half-removed capture is never taken for whole.
            let files = members[set] ?? []
            for file in files.filter({ $0.hasSuffix(".json") }) + files.filter({ !$0.hasSuffix(".json") }) {
                guard unlink("\(directory)/\(file)") == 0 || errno == ENOENT else {
                    throw SystemCallError("remove", path: "\(directory)/\(file)")
                }
            }
            if directories.contains(set) { try SignatureCapture.removeTree("\(directory)/\(set)", first: "\(set).json") }
        }
        if !expired.isEmpty { try DurableFile.sync(directory) }
        return expired
    }
}
