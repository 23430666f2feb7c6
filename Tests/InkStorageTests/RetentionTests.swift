// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import InkStorage
import InkTestSupport

@Suite struct RetentionTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func filesOfOneCaptureOrSaveGoTogether() {
        #expect(Retention.setName("sig-42.png") == "sig-42")
        #expect(Retention.setName("sig-42.json") == "sig-42")
        #expect(Retention.setName("notebook-20261123-101500-page12.png") == "notebook-20261123-101500")
        #expect(Retention.setName("notebook-20261123-101500.pdf") == "notebook-20261123-101500")
    }

    @Test func theOldestBeyondTheCountAndEverythingTooOldGoes() {
        let r = Retention(keep: 2, maxAgeDays: 10)
        let sets = ["a": now.addingTimeInterval(-1), "b": now.addingTimeInterval(-2), "c": now.addingTimeInterval(-3),
                    "d": now.addingTimeInterval(-11 * 86_400)]
        #expect(r.expired(sets, now: now) == ["d", "c"])
        #expect(Retention(keep: 0, maxAgeDays: 0).expired(sets, now: now).isEmpty)
    }

    /// On disk: the oldest capture's four files go, the newest stay, temporary files are not touched.
    @Test func pruneRemovesWholeCapturesFromADirectory() throws {
        let dir = try Fixtures.outputDirectory("retention")
        for f in try FileManager.default.contentsOfDirectory(atPath: dir) { unlink("\(dir)/\(f)") }
        for (i, name) in ["old", "mid", "new"].enumerated() {
            for ext in ["png", "svg", "inkml", "json"] {
                let path = "\(dir)/\(name).\(ext)"
                FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
                var times = [timespec(tv_sec: 1_790_000_000 + i * 60, tv_nsec: 0), timespec(tv_sec: 1_790_000_000 + i * 60, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            }
        }
        FileManager.default.createFile(atPath: "\(dir)/.old.png.tmp", contents: Data())
        let removed = try Retention(keep: 2, maxAgeDays: 0).prune(dir, now: now)
        #expect(removed == ["old"])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        #expect(left == [".old.png.tmp", "mid.png", "mid.svg", "mid.inkml", "mid.json", "new.png", "new.svg", "new.inkml", "new.json"])
    }
}
