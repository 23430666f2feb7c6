// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Testing
@testable import InkUpdateAgent

/// The DDI documents as goosebit 0.2.12 and Eclipse hawkBit send them (their shapes copied from
/// what each server answered), read into the one bundle the agent installs.
struct DDIDocumentTests {
    @Test func aPollFromGoosebitNamesTheSleepAndTheLinks() throws {
        let text = #"{"config":{"polling":{"sleep":"00:00:10"}},"_links":{"configData":{"href":"https://h/DEFAULT/controller/v1/k1/configData"}}}"#
        let base = try JSONDecoder().decode(DDI.ControllerBase.self, from: Data(text.utf8))
        #expect(base.sleepSeconds == 10)
        #expect(base.links.configData?.href == "https://h/DEFAULT/controller/v1/k1/configData")
        #expect(base.links.deploymentBase == nil)
    }

    @Test func aPollWithoutLinksOrConfigIsNothingToDo() throws {
        let base = try JSONDecoder().decode(DDI.ControllerBase.self, from: Data("{}".utf8))
        #expect(base.sleepSeconds == nil)
        #expect(base.links == DDI.ControllerBase.Links())
    }

    @Test func sleepIsHoursMinutesSeconds() {
        #expect(DDI.seconds("12:00:00") == 43_200)
        #expect(DDI.seconds("00:05:07") == 307)
        #expect(DDI.seconds("100:00:00") == 360_000)
        for bad in ["", "5", "00:60:00", "00:00:60", "-1:00:00", "a:b:c", "00:00", "00::00"] {
            #expect(DDI.seconds(bad) == nil, "\(bad)")
        }
    }

    @Test func goosebitsDeploymentGivesItsBundleWithSha1() throws {
        let text = #"""
        {"id":"3","deployment":{"download":"forced","update":"forced","chunks":[{"part":"os","version":"1.0.0+v2","name":"update.raucb",
         "artifacts":[{"filename":"update.raucb","hashes":{"sha1":"A94A8FE5CCB19BA61C4C0873D391E987982FBBD3"},"size":4096,
         "_links":{"download":{"href":"https://h/DEFAULT/controller/v1/k1/download"}}}]}]}}
        """#
        let offer = try JSONDecoder().decode(DDI.DeploymentBase.self, from: Data(text.utf8)).bundle()
        #expect(offer == BundleOffer(actionID: "3", filename: "update.raucb", url: "https://h/DEFAULT/controller/v1/k1/download",
                                     size: 4096, hash: ExpectedHash(kind: .sha1, hex: "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"),
                                     version: "1.0.0+v2", update: "forced"))
    }

    @Test func hawkbitsSha256WinsOverSha1AndItsHttpLinkIsTheFallback() throws {
        let sha256 = String(repeating: "ab", count: 32)
        let text = """
        {"id":"17","deployment":{"download":"attempt","update":"attempt","maintenanceWindow":"available","chunks":[{"part":"os","version":"2.0.0","name":"os",
         "artifacts":[{"filename":"b.raucb","hashes":{"sha1":"\(String(repeating: "1", count: 40))","md5":"x","sha256":"\(sha256)"},"size":10,
         "_links":{"download-http":{"href":"http://h/b"}}}]}]}}
        """
        let offer = try JSONDecoder().decode(DDI.DeploymentBase.self, from: Data(text.utf8)).bundle()
        #expect(offer.hash == ExpectedHash(kind: .sha256, hex: sha256))
        #expect(offer.url == "http://h/b")
        #expect(offer.version == "2.0.0")
    }

    @Test func aDeploymentWithoutOneUsableArtifactSaysWhy() throws {
        func problem(_ artifacts: String) throws -> String {
            let text = #"{"id":"9","deployment":{"chunks":[{"artifacts":["# + artifacts + #"]}]}}"#
            do { _ = try JSONDecoder().decode(DDI.DeploymentBase.self, from: Data(text.utf8)).bundle(); return "accepted" } catch {
                return "\(error)"
            }
        }
        let link = #""_links":{"download":{"href":"https://h/x"}}"#
        let sha1 = #""hashes":{"sha1":"a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"}"#
        #expect(try problem("") == "action 9 offers no artifact")
        #expect(try problem(#"{"filename":"a",\#(sha1),\#(link)},{"filename":"b",\#(sha1),\#(link)}"#)
                    .contains("offers 2 artifacts (a, b)"))
        #expect(try problem(#"{"filename":"a",\#(sha1),"_links":{}}"#) == "action 9: artifact a has no download link")
        #expect(try problem(#"{"filename":"a","hashes":{"md5":"00"},\#(link)}"#) == "action 9: artifact a has no sha256 or sha1 hash")
        #expect(try problem(#"{"filename":"a","hashes":{"sha256":"short"},\#(link)}"#) == "action 9: artifact a has no sha256 or sha1 hash")
    }

    @Test func feedbackIsWhatTheServersRead() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(DDI.Feedback.failure("refused: hash")), as: UTF8.self)
        #expect(text == #"{"status":{"details":["refused: hash"],"execution":"closed","result":{"finished":"failure"}}}"#)
        let proceeding = String(decoding: try encoder.encode(DDI.Feedback.proceeding("installing")), as: UTF8.self)
        #expect(proceeding == #"{"status":{"details":["installing"],"execution":"proceeding","result":{"finished":"none"}}}"#)
        let data = String(decoding: try encoder.encode(DDI.ConfigData(data: ["slot": "A"])), as: UTF8.self)
        #expect(data == #"{"data":{"slot":"A"},"mode":"merge"}"#)
    }
}
