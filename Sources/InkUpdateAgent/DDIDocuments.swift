// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// hawkBit's Direct Device Integration API (DDI v1), the documents the agent reads and writes:
/// what Eclipse hawkBit and goosebit send, as far as an update of one RAUC bundle needs. Unknown
/// fields are ignored; a missing field the agent needs makes the document an error that names it.
public enum DDI {
    /// `GET {server}/{tenant}/controller/v1/{controllerId}`: when to ask again, and what to do.
    public struct ControllerBase: Decodable, Equatable, Sendable {
        public var config: Config?
        public var links: Links

        public struct Config: Decodable, Equatable, Sendable {
            public var polling: Polling?
        }

        public struct Polling: Decodable, Equatable, Sendable {
            /// "HH:MM:SS".
            public var sleep: String?
        }

        public struct Links: Decodable, Equatable, Sendable {
            public var deploymentBase: Link?
            public var configData: Link?
            public var cancelAction: Link?
        }

        enum CodingKeys: String, CodingKey { case config, links = "_links" }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            config = try c.decodeIfPresent(Config.self, forKey: .config)
            links = try c.decodeIfPresent(Links.self, forKey: .links) ?? Links()
        }

        public init(sleep: String?, links: Links) {
            config = Config(polling: Polling(sleep: sleep)); self.links = links
        }

        /// The server's polling interval in seconds; nil when it sends none or one that is not "HH:MM:SS".
        public var sleepSeconds: Int? { config?.polling?.sleep.flatMap(DDI.seconds) }
    }

    public struct Link: Codable, Equatable, Sendable {
        public var href: String
        public init(href: String) { self.href = href }
    }

    /// `GET …/deploymentBase/{actionId}`: the action and what to download.
    public struct DeploymentBase: Decodable, Equatable, Sendable {
        public var id: String
        public var deployment: Deployment

        public struct Deployment: Decodable, Equatable, Sendable {
            /// "skip", "attempt" or "forced".
            public var download: String?
            public var update: String?
            /// hawkBit's: "available" or "unavailable" when the action has a maintenance window.
            public var maintenanceWindow: String?
            public var chunks: [Chunk]
        }

        public struct Chunk: Decodable, Equatable, Sendable {
            public var part: String?
            public var version: String?
            public var name: String?
            public var artifacts: [Artifact]
        }

        public struct Artifact: Decodable, Equatable, Sendable {
            public var filename: String
            public var hashes: Hashes
            public var size: Int64?
            public var links: [String: Link]

            enum CodingKeys: String, CodingKey { case filename, hashes, size, links = "_links" }
        }

        public struct Hashes: Decodable, Equatable, Sendable {
            public var sha256: String?
            public var sha1: String?
            public var md5: String?
        }
    }

    /// `POST …/deploymentBase/{actionId}/feedback`.
    public struct Feedback: Encodable, Equatable, Sendable {
        public var status: Status

        public struct Status: Encodable, Equatable, Sendable {
            public var execution: Execution
            public var result: Result
            public var details: [String]
        }

        public struct Result: Encodable, Equatable, Sendable {
            public var finished: Finished
        }

        public enum Execution: String, Encodable, Sendable { case proceeding, closed, scheduled, downloaded, rejected }
        public enum Finished: String, Encodable, Sendable { case success, failure, none }

        public init(_ execution: Execution, _ finished: Finished, details: [String]) {
            status = Status(execution: execution, result: Result(finished: finished), details: details)
        }

        public static func proceeding(_ details: String...) -> Feedback { Feedback(.proceeding, .none, details: details) }
        public static func success(_ details: String...) -> Feedback { Feedback(.closed, .success, details: details) }
        public static func failure(_ details: String...) -> Feedback { Feedback(.closed, .failure, details: details) }
    }

    /// `PUT …/configData`: the device's attributes.
    public struct ConfigData: Encodable, Equatable, Sendable {
        public var mode = "merge"
        public var data: [String: String]
        public init(data: [String: String]) { self.data = data }
    }

    /// "HH:MM:SS" (hours may have more digits) in seconds; nil for anything else.
    public static func seconds(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigit) }),
              let h = Int(parts[0]), let m = Int(parts[1]), let s = Int(parts[2]), m < 60, s < 60 else { return nil }
        return h * 3600 + m * 60 + s
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
