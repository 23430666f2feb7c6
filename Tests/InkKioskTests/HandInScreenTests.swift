// SPDX-License-Identifier: Apache-2.0
import Foundation
import InkClassroom
import InkConfig
import InkCore
import InkStorage
import Testing
@testable import InkKiosk
import InkTestSupport

/// The classroom screen with the school's cloud: Hand in puts the notebook in the agent's outbox,
/// the pupil sees what became of it, the deadline closes it, and an unenrolled tablet shows its
/// login as a QR code a phone can read. The agent's side is played by writing its files.
@Suite(.serialized) struct HandInScreenTests {
    let directory: String
    let cloud: CloudSettings

    init() throws {
        directory = try Fixtures.outputDirectory("hand-in-\(UUID().uuidString.prefix(8))")
        var c = CloudSettings()
        c.server = "https://cloud.school.example"
        c.deviceName = "tablet-07"
        c.stateDirectory = directory + "/cloud"
        cloud = c
    }

    func booth() throws -> Booth {
        var s = ScreenSettings()
        s.mode = .classroom
        s.capture.saveDirectory = directory + "/saved"
        s.cloud = cloud
        return try Booth(s)
    }

    var files: CloudFiles { CloudFiles(cloud) }

    /// Dark or red pixels of the banner band above the bottom edge.
    func bannerInk(_ booth: Booth) -> Int { booth.shown.inkCount(x0: 200, y0: 700, x1: 1080, y1: 790) }

    @Test func handInPutsTheNotebookInTheOutboxAndShowsWhatBecameOfIt() throws {
        let booth = try booth()
        let screen = try #require(booth.screen as? ClassroomScreen)
        #expect(screen.layout(booth.pipeline).controls.first { $0.action == .handIn }?.style == .disabled)   // nothing drawn yet
        try booth.draw([Point(300, 400), Point(700, 420), Point(900, 380)])
        try booth.tap(.handIn)
        try booth.frame()
        let items = try files.outbox.items()
        #expect(items.count == 1)
        #expect(items.first?.files.map(\.remote) == ["tablet-07-notebook.pdf"])
        let pdf = try Data(contentsOf: URL(fileURLWithPath: files.outbox.path(of: items[0].files[0], in: items[0])))
        #expect(pdf.starts(with: Array("%PDF-".utf8)))
        // The save was only for the hand-in: the outbox holds the one copy.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/saved").isEmpty)
        #expect(screen.cloudView.handInLine("notebook", UIText())?.0 == UIText().handInQueued)
        try booth.png("classroom-hand-in-queued")

        // The agent sent it: the ledger says so and the outbox is empty.
        var ledger = HandInLedger()
        ledger.states["notebook"] = HandInState(phase: .sent, updated: 1, itemID: items[0].id)
        try ledger.save(files.ledger)
        try files.outbox.remove(items[0])
        try booth.frame()
        #expect(screen.cloudView.handInLine("notebook", UIText())?.0 == UIText().handInSent)
        #expect(bannerInk(booth) > 300)
        try booth.png("classroom-hand-in-sent")

        ledger.states["notebook"] = HandInState(phase: .failed, reason: "tablet-07-notebook.pdf was changed on the server since this tablet handed it in: it was not replaced",
                                                updated: 2, itemID: "x")
        try ledger.save(files.ledger)
        try booth.frame()
        #expect(screen.cloudView.handInLine("notebook", UIText())?.1 == true)
        try booth.png("classroom-hand-in-failed")
        var sawRed = false
        for y in stride(from: 700, to: 790, by: 4) {
            let p = booth.shown.image.pixel(x: 640, y: y)
            if p.r > 150 && p.g < 60 && p.b < 60 { sawRed = true }
        }
        #expect(sawRed, "the failure is shown in red")
    }

    @Test func afterTheDeadlineHandInIsClosed() throws {
        var state = HandOutState()
        state.deadline = Int64(Date().timeIntervalSince1970) - 60
        try FileManager.default.createDirectory(atPath: cloud.stateDirectory, withIntermediateDirectories: true)
        try state.save(files.handOutState)
        let booth = try booth()
        let screen = try #require(booth.screen as? ClassroomScreen)
        try booth.draw([Point(300, 400), Point(700, 420)])
        try booth.frame()
        let control = try #require(screen.layout(booth.pipeline).controls.first { $0.action == .handIn })
        #expect(control.label == UIText().handInClosed)
        #expect(control.style == .disabled)
        try booth.tap(.handIn)
        #expect(try files.outbox.items().isEmpty)
        try booth.png("classroom-hand-in-closed")
    }

    @Test func anUnenrolledTabletShowsItsLoginAsAQRCodeAPhoneCanRead() throws {
        let url = "https://cloud.school.example/index.php/login/v2/flow/k3Jd8s0QmZ2xPq7T"
        try FileManager.default.createDirectory(atPath: cloud.stateDirectory, withIntermediateDirectories: true)
        try DurableFile.replace(files.status, with: JSONEncoder().encode(CloudStatus(loginURL: url, loginExpires: Int64(Date().timeIntervalSince1970) + 600, updated: 1)))
        let booth = try booth()
        try booth.frame()
        try booth.frame()
        let png = "\(try Fixtures.outputDirectory("screens"))/classroom-enrolment.png"
        try booth.png("classroom-enrolment")
        // zbarimg (ZBar) reads the code off the screen's picture, as a phone's camera would.
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", png]
        let out = Pipe()
        zbar.standardOutput = out
        try zbar.run()
        zbar.waitUntilExit()
        let read = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(zbar.terminationStatus == 0)
        #expect(read == url)
    }
}
