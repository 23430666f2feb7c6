// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkClassroom

/// The decisions without a server: which hand-outs to fetch, the settings' checks, the login's origins.
struct ClassroomRulesTests {
    func pdf(_ name: String, _ etag: String?, _ bytes: Int64 = 100) -> DAVResource {
        DAVResource(path: "/dav/Hand-out/\(name)", isFolder: false, etag: etag, bytes: bytes)
    }

    @Test func onlyNewChangedOrMissingWorksheetsAreFetchedAndOnlyOursRemoved() {
        let entries = [pdf("a.pdf", "\"1\""), pdf("b.pdf", "\"2\""), pdf("c.PDF", "\"3\""), pdf("notes.txt", "\"4\""),
                       DAVResource(path: "/dav/Hand-out/sub.pdf/", isFolder: true, etag: "\"5\"")]
        let plan = HandOutSync.plan(entries, known: ["a.pdf": "\"1\"", "b.pdf": "\"old\"", "gone.pdf": "\"9\""],
                                    maxFiles: 10, maxBytes: 1000, exists: { $0 != "c.PDF" })
        #expect(plan.fetch.map(\.name) == ["b.pdf", "c.PDF"])
        #expect(plan.remove == ["gone.pdf"])
        #expect(plan.refused.isEmpty)
        // A file fetched before but deleted on the tablet is fetched again.
        #expect(HandOutSync.plan([pdf("a.pdf", "\"1\"")], known: ["a.pdf": "\"1\""], maxFiles: 10, maxBytes: 1000,
                                 exists: { _ in false }).fetch.map(\.name) == ["a.pdf"])
    }

    @Test func tooLargeTooManyHiddenAndLongNamesAreRefusedWithTheReason() {
        let long = String(repeating: "x", count: 130) + ".pdf"
        let plan = HandOutSync.plan([pdf("big.pdf", "\"1\"", 2000), pdf(".hidden.pdf", "\"2\""), pdf(long, "\"3\""),
                                     pdf("1.pdf", "\"4\""), pdf("2.pdf", "\"5\""), pdf("3.pdf", "\"6\"")],
                                    known: ["3.pdf": "\"6\""], maxFiles: 2, maxBytes: 1000, exists: { _ in true })
        #expect(plan.fetch.map(\.name) == ["1.pdf", "2.pdf"])
        #expect(plan.refused == ["big.pdf": "2000 bytes, over the limit of 1000", ".hidden.pdf": "a hidden name",
                                 long: "a name over 120 bytes", "3.pdf": "more than 2 worksheets in the folder"])
        #expect(plan.remove == ["3.pdf"])
    }

    @Test func theDeadlineIsReadWithItsOffsetAndATypoIsAnError() throws {
        #expect(try ClassManifest(deadline: "2026-12-04T15:00:00+01:00").deadlineSeconds() == 1_796_392_800)
        #expect(try ClassManifest(deadline: "2026-12-04T14:00:00Z").deadlineSeconds() == 1_796_392_800)
        #expect(try ClassManifest().deadlineSeconds() == nil)
        #expect(throws: HandOutProblem.self) { try ClassManifest(deadline: "4.12.2026 15:00").deadlineSeconds() }
    }

    @Test func theServerMustBeHTTPSExceptOnLoopback() {
        #expect(CloudSettings.urlProblem("https://cloud.school.example") == nil)
        #expect(CloudSettings.urlProblem("http://127.0.0.1:8080") == nil)
        #expect(CloudSettings.urlProblem("http://localhost") == nil)
        #expect(CloudSettings.urlProblem("http://cloud.school.example")?.hasPrefix("must be https") == true)
        #expect(CloudSettings.urlProblem("http://127.0.0.1.evil.example")?.hasPrefix("must be https") == true)
        #expect(CloudSettings.urlProblem("https://user:pw@cloud.example") != nil)
        #expect(CloudSettings.urlProblem("ftp://cloud.example") != nil)
        #expect(CloudSettings.shareParts("https://cloud.example/nc/s/AbC123/")! == ("https://cloud.example/nc", "AbC123"))
        #expect(CloudSettings.shareParts("https://cloud.example/s/") == nil)
        #expect(CloudSettings.deviceNameProblem("tablet-07") == nil)
        #expect(CloudSettings.deviceNameProblem("Anna Müller") != nil)
        #expect(CloudSettings.folderProblem("Class 7b/../Staff") != nil)
    }

    @Test func theLoginsURLsMustBeOnTheServersOrigin() {
        #expect(LoginFlow.sameOrigin("https://cloud.example/index.php/login/v2/poll", "https://cloud.example"))
        #expect(LoginFlow.sameOrigin("https://Cloud.example:443/x", "https://cloud.example/nc"))
        #expect(!LoginFlow.sameOrigin("https://cloud.example.evil/x", "https://cloud.example"))
        #expect(!LoginFlow.sameOrigin("https://cloud.example@evil/x", "https://cloud.example"))
        #expect(!LoginFlow.sameOrigin("http://cloud.example/x", "https://cloud.example"))
        #expect(!LoginFlow.sameOrigin("https://cloud.example:8443/x", "https://cloud.example"))
    }
}
