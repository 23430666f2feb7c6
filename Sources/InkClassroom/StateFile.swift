// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkStorage

/// The agent's small JSON files (the ledger, a folder's state, the credentials): read whole, written
/// whole, synced and renamed into place, so that after a power cut each is the old one or the new one.
enum StateFile {
    struct Unreadable: Error, CustomStringConvertible, Sendable {
        var description: String
    }

    /// The file's value, or nil when there is no file. One that cannot be read as `type` is an
    /// error naming the file and what it should be (the decoder's words: they never quote a value).
    static func load<T: Decodable>(_ path: String, as type: T.Type, what: String) throws -> T? {
        guard access(path, F_OK) == 0 else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw Unreadable(description: "\(path) cannot be read as \(what): \(error)")
        }
    }

    static func save(_ value: some Encodable, to path: String, mode: mode_t) throws {
        try DurableFile.replace(path, with: try JSONEncoder().encode(value), mode: mode)
        try DurableFile.sync(directoryOf: path)
    }
}
