// SPDX-License-Identifier: Apache-2.0
/// The one RAUC bundle a deployment offers: where it is, how large, its hash and its version.
public struct BundleOffer: Equatable, Sendable {
    public var actionID: String
    public var filename: String
    public var url: String
    public var size: Int64?
    public var hash: ExpectedHash
    /// The chunk's version (hawkBit's software module, goosebit's software); nil when the server sends none.
    public var version: String?
    /// "forced", "attempt" or "skip" as the server says; a skipped update is not installed.
    public var update: String?
}

/// The strongest hash the server gave. hawkBit sends sha256 (and sha1, md5); goosebit only sha1.
/// The bundle's own signature, which RAUC checks, is what proves where it came from; the hash
/// proves the download is the file the server meant.
public struct ExpectedHash: Equatable, Sendable {
    public enum Kind: String, Sendable { case sha256, sha1 }
    public var kind: Kind
    /// Lower-case hex.
    public var hex: String
}

public struct DeploymentProblem: Error, Equatable, CustomStringConvertible {
    public var description: String
}

extension DDI.DeploymentBase {
    /// The bundle of this deployment: exactly one artifact with a download link and a sha256 or sha1.
    public func bundle() throws(DeploymentProblem) -> BundleOffer {
        let all = deployment.chunks.flatMap { chunk in chunk.artifacts.map { (chunk, $0) } }
        guard let (chunk, artifact) = all.first else {
            throw DeploymentProblem(description: "action \(id) offers no artifact")
        }
        guard all.count == 1 else {
            throw DeploymentProblem(description: "action \(id) offers \(all.count) artifacts (\(all.map(\.1.filename).joined(separator: ", "))); "
                                    + "the agent installs one RAUC bundle")
        }
        guard let link = artifact.links["download"] ?? artifact.links["download-http"] else {
            throw DeploymentProblem(description: "action \(id): artifact \(artifact.filename) has no download link")
        }
        let hash: ExpectedHash
        if let sha256 = artifact.hashes.sha256, Self.isHex(sha256, count: 64) {
            hash = ExpectedHash(kind: .sha256, hex: sha256.lowercased())
        } else if let sha1 = artifact.hashes.sha1, Self.isHex(sha1, count: 40) {
            hash = ExpectedHash(kind: .sha1, hex: sha1.lowercased())
        } else {
            throw DeploymentProblem(description: "action \(id): artifact \(artifact.filename) has no sha256 or sha1 hash")
        }
        if let size = artifact.size, size < 0 {
            throw DeploymentProblem(description: "action \(id): artifact \(artifact.filename) has a negative size (\(size))")
        }
        return BundleOffer(actionID: id, filename: artifact.filename, url: link.href, size: artifact.size, hash: hash,
                           version: chunk.version, update: deployment.update)
    }

    static func isHex(_ s: String, count: Int) -> Bool {
        s.utf8.count == count && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
    }
}
