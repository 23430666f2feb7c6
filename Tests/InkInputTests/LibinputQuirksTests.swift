// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkInput

/// The quirks file the kiosk ships (deploy/libinput/local-overrides.quirks in this checkout).
private let shippedQuirksPath = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("deploy/libinput/local-overrides.quirks").path

private let wacomPen = DeviceIdentity(name: "Wacom Intuos5 touch M Pen", bus: 0x03, vendor: 0x056A, product: 0x0027,
                                      version: 0x0110, udevTypes: [.tablet])
private let touchscreen = DeviceIdentity(name: "ILITEK ILITEK-TP", bus: 0x03, vendor: 0x222A, product: 0x0001,
                                         udevTypes: [.touchscreen])

/// Quirks read from (file name, text) pairs, in that order.
private func quirks(_ files: (String, String)...) -> LibinputQuirks {
    var q = LibinputQuirks()
    for (name, text) in files { q.add(file: name, text: text) }
    return q
}

/// A section that sets smoothing for whatever its Match lines select.
private func section(_ name: String, _ matches: String..., smoothing: Int) -> String {
    "[\(name)]\n" + matches.map { $0 + "\n" }.joined() + "AttrTabletSmoothing=\(smoothing)\n"
}

@Suite struct ShippedQuirk {
    let text: String
    /// The line of AttrTabletSmoothing=0 in the shipped file, found independently of the reader.
    let attributeLine: Int?

    init() throws {
        text = try String(contentsOfFile: shippedQuirksPath, encoding: .utf8)
        attributeLine = text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex(of: "AttrTabletSmoothing=0").map { $0 + 1 }
    }

    @Test func turnsSmoothingOffForATablet() throws {
        let q = quirks((LibinputQuirks.overrideFile, text))
        #expect(q.problems.isEmpty)
        let line = try #require(attributeLine)
        let answer = q.tabletSmoothing(for: wacomPen)
        #expect(answer.setting == .off)
        #expect(answer.reason == .quirk(enabled: false, at: QuirkLocation(file: "/etc/libinput/local-overrides.quirks", line: line)))
        #expect(answer.description == "off (AttrTabletSmoothing=0, /etc/libinput/local-overrides.quirks:\(line))")
    }

    @Test func saysNothingForATouchscreen() {
        let answer = quirks((LibinputQuirks.overrideFile, text)).tabletSmoothing(for: touchscreen)
        #expect(answer.setting == .on)
        #expect(answer.reason == .libinputDefault)
        #expect(answer.description.hasPrefix("on (libinput's default, but off for Wacom AES pens"))
        #expect(answer.description.hasSuffix("deploy/libinput/local-overrides.quirks turns it off)"))
    }

    /// libinput's own data files parse cleanly, one of them enables smoothing for a Lenovo
    /// tablet, and the shipped override, read last, turns it off again.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: LibinputQuirks.dataDirectory + "/50-system-lenovo.quirks")))
    func winsOverThisMachinesDataFiles() throws {
        let yogaPen = DeviceIdentity(name: "Wacom HID 5196 Pen", bus: 0x18, vendor: 0x056A, product: 0x5196, udevTypes: [.tablet])
        let dataOnly = LibinputQuirks.load(directory: LibinputQuirks.dataDirectory, overrideFile: nil)
        #expect(dataOnly.problems.isEmpty, "\(dataOnly.problems)")
        #expect(dataOnly.sections.count > 100)
        let byData = dataOnly.tabletSmoothing(for: yogaPen)
        #expect(byData.setting == .on)
        guard case .quirk(enabled: true, at: let at) = byData.reason else {
            Issue.record("expected 50-system-lenovo.quirks to enable smoothing, got \(byData.reason)")
            return
        }
        #expect(at.file == "/usr/share/libinput/50-system-lenovo.quirks")

        let withOverride = LibinputQuirks.load(directory: LibinputQuirks.dataDirectory, overrideFile: shippedQuirksPath)
        #expect(withOverride.tabletSmoothing(for: yogaPen).reason
                == .quirk(enabled: false, at: QuirkLocation(file: shippedQuirksPath, line: try #require(attributeLine))))
    }
}

@Suite struct QuirkOrder {
    @Test func aLaterSectionOverridesAnEarlierOne() {
        let q = quirks(("a.quirks", section("All tablets", "MatchUdevType=tablet", smoothing: 0)
                                    + "\n" + section("Wacom", "MatchVendor=0x056A", smoothing: 1)))
        let answer = q.tabletSmoothing(for: wacomPen)
        #expect(answer.setting == .on)
        #expect(answer.reason == .quirk(enabled: true, at: QuirkLocation(file: "a.quirks", line: 7)))
    }

    @Test func aLaterFileOverridesAnEarlierOne() {
        let q = quirks(("10-a.quirks", section("Wacom", "MatchVendor=0x056A", smoothing: 1)),
                       ("20-b.quirks", section("Tablets", "MatchUdevType=tablet", smoothing: 0)))
        #expect(q.tabletSmoothing(for: wacomPen).reason == .quirk(enabled: false, at: QuirkLocation(file: "20-b.quirks", line: 3)))
        #expect(q.sections.map(\.location) == [QuirkLocation(file: "10-a.quirks", line: 1), QuirkLocation(file: "20-b.quirks", line: 1)])
    }

    @Test func theOverrideFileWinsAndDataFilesGoInVersionOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("quirks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // versionsort reads 9-… before 10-…; a plain byte order would read 10-… first.
        try section("Nine", "MatchUdevType=tablet", smoothing: 0).write(to: dir.appendingPathComponent("9-a.quirks"), atomically: true, encoding: .utf8)
        try section("Ten", "MatchUdevType=tablet", smoothing: 1).write(to: dir.appendingPathComponent("10-b.quirks"), atomically: true, encoding: .utf8)
        try "not a quirks file".write(to: dir.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        let override = dir.appendingPathComponent("local-overrides.conf")
        try ("# ours\n" + section("Override", "MatchName=*Pen", smoothing: 0)).write(to: override, atomically: true, encoding: .utf8)

        let dataOnly = LibinputQuirks.load(directory: dir.path, overrideFile: dir.appendingPathComponent("absent.quirks").path)
        #expect(dataOnly.problems.isEmpty)
        #expect(dataOnly.sections.map(\.name) == ["Nine", "Ten"])
        #expect(dataOnly.tabletSmoothing(for: wacomPen).reason == .quirk(enabled: true, at: QuirkLocation(file: dir.path + "/10-b.quirks", line: 3)))

        let withOverride = LibinputQuirks.load(directory: dir.path, overrideFile: override.path)
        let answer = withOverride.tabletSmoothing(for: wacomPen)
        #expect(answer.setting == .off)
        #expect(answer.reason == .quirk(enabled: false, at: QuirkLocation(file: override.path, line: 4)))
    }

    @Test func versionOrderComparesNumbersByValue() {
        let names = ["50-system-lenovo.quirks", "10-generic-mouse.quirks", "9-early.quirks", "10-generic-keyboard.quirks", "100-late.quirks"]
        #expect(names.sorted(by: QuirksDirectory.versionOrder)
                == ["9-early.quirks", "10-generic-keyboard.quirks", "10-generic-mouse.quirks", "50-system-lenovo.quirks", "100-late.quirks"])
    }
}

@Suite struct QuirkMatching {
    private func smoothing(_ matches: String..., device: DeviceIdentity) -> TabletSmoothing.Setting {
        var text = "[Test]\n"
        for m in matches { text += m + "\n" }
        text += "AttrTabletSmoothing=0\n"
        let q = quirks(("t.quirks", text))
        #expect(q.problems.isEmpty, "\(q.problems)")
        return q.tabletSmoothing(for: device).setting
    }

    @Test func matchNameIsAGlob() {
        #expect(smoothing("MatchName=*Pen", device: wacomPen) == .off)
        #expect(smoothing("MatchName=[Ww]acom Intuos? touch M *", device: wacomPen) == .off)
        #expect(smoothing("MatchName=*Pad", device: wacomPen) == .on)
        #expect(smoothing("MatchName=Wacom", device: wacomPen) == .on)   // the whole name, not a part of it
    }

    @Test func vendorAndProductLists() {
        #expect(smoothing("MatchVendor=0x056A", "MatchProduct=0x0001;0x0027;0x5196", device: wacomPen) == .off)
        #expect(smoothing("MatchVendor=0x056A", "MatchProduct=0x0028;0x5196", device: wacomPen) == .on)
        #expect(smoothing("MatchVendor=0x056B", "MatchProduct=0x0027", device: wacomPen) == .on)
        #expect(smoothing("MatchVersion=0x0110", device: wacomPen) == .off)
        #expect(smoothing("MatchVersion=0x0111", device: wacomPen) == .on)
    }

    @Test func matchBusComparesTheKernelsBusNumber() {
        #expect(smoothing("MatchBus=usb", device: wacomPen) == .off)
        #expect(smoothing("MatchBus=i2c", device: wacomPen) == .on)
        var i2cPen = wacomPen
        i2cPen.bus = 0x18
        #expect(smoothing("MatchBus=i2c", device: i2cPen) == .off)
        i2cPen.bus = 0x06   // BUS_VIRTUAL: no MatchBus name
        #expect(smoothing("MatchBus=usb", device: i2cPen) == .on)
    }

    @Test func whatTheDeviceOrMachineLacksDoesNotMatch() {
        #expect(smoothing("MatchUniq=*", device: wacomPen) == .on)
        var pen = wacomPen
        pen.uniq = "8LQ0123456"
        #expect(smoothing("MatchUniq=8LQ*", device: pen) == .off)
        #expect(smoothing("MatchDMIModalias=dmi:*", device: pen) == .on)
        pen.dmiModalias = "dmi:bvnSeaBIOS:svnQEMU:pnStandardPC"
        #expect(smoothing("MatchDMIModalias=dmi:*svnQEMU:*", device: pen) == .off)
        #expect(smoothing("MatchDeviceTree=rockchip,*", device: pen) == .on)
        pen.deviceTreeCompatible = "rockchip,rk3568-evb1-v10"
        #expect(smoothing("MatchDeviceTree=rockchip,*", device: pen) == .off)
    }

    @Test func udevTypes() {
        #expect(smoothing("MatchUdevType=tablet", device: touchscreen) == .on)
        #expect(smoothing("MatchUdevType=touchscreen", device: touchscreen) == .off)
        let stick = DeviceIdentity(name: "TPPS/2 IBM TrackPoint", udevTypes: [.pointingstick])
        #expect(smoothing("MatchUdevType=mouse", device: stick) == .off)   // libinput counts a pointing stick as a mouse
    }

    @Test func aSectionWithAnUnknownMatchKeyDoesNotMatch() {
        let shipped = section("Tablets", "MatchUdevType=tablet", smoothing: 0)
        let newer = section("Newer", "MatchUdevType=tablet", "MatchFirmware=1.2*", smoothing: 1)
        let q = quirks(("a.quirks", shipped + newer))
        #expect(q.problems.isEmpty)
        let answer = q.tabletSmoothing(for: wacomPen)
        #expect(answer.reason == .quirk(enabled: false, at: QuirkLocation(file: "a.quirks", line: 3)))
        #expect(answer.setting == .unknown)   // it would turn smoothing back on if it matched
        #expect(answer.uncounted == [.init(section: "Newer", location: QuirkLocation(file: "a.quirks", line: 4),
                                           unknownKeys: ["MatchFirmware"], enabled: true)])
        #expect(answer.description.contains("not counted: [Newer] at a.quirks:4, which would set AttrTabletSmoothing=1 but has MatchFirmware"))

        // Not mentioned: one whose known keys already fail, and one a later section overrides.
        let failing = section("Other pens", "MatchName=*Huion*", "MatchFirmware=1.2*", smoothing: 1)
        let earlier = section("Early", "MatchFirmware=1.2*", smoothing: 1)
        let settled = quirks(("a.quirks", earlier + shipped + failing)).tabletSmoothing(for: wacomPen)
        #expect(settled.setting == .off)
        #expect(settled.uncounted.isEmpty)
    }

    @Test func malformedLinesAreReportedWithFileAndLine() {
        let text = """
            # comment
            MatchName=*before a section
            [Good]
            MatchUdevType=tablet
            AttrTabletSmoothing=0
            [Bad values]
            MatchVendor=0x056a
            MatchBus=firewire
            AttrTabletSmoothing=yes
            MatchName=*late
            [Blanks]\("  ")
            MatchName=x\t
            AttrSizeHint=10x10
            [Empty]
            MatchName=*
            no equals sign
            """
        let q = quirks(("/etc/libinput/local-overrides.quirks", text))
        #expect(q.problems.map(\.location.line) == [2, 7, 8, 9, 10, 11, 12, 14, 16])
        #expect(q.problems.allSatisfy { $0.location.file == "/etc/libinput/local-overrides.quirks" })
        #expect(q.problems[1].message.contains("upper-case hex"))
        #expect(q.problems[2].message.contains("usb, bluetooth, ps2, rmi, i2c, spi"))
        #expect(q.problems[5].message == "trailing whitespace")
        #expect(q.problems[7].message.contains("[Empty] needs a Match… line and an Attr… or Model… line"))

        // libinput loads no quirks once a file has an error: smoothing stays on.
        let answer = q.tabletSmoothing(for: wacomPen)
        #expect(answer.setting == .on)
        #expect(answer.reason == .quirksRejected(q.problems[0]))
        #expect(answer.description.hasPrefix("on (libinput's default: it loads no quirks when a file has an error, here /etc/libinput/local-overrides.quirks:2: "))
    }

    @Test func windowsLineEndingsAreReportedOnEveryLine() {
        let q = quirks(("crlf.quirks", "[Tablets]\r\nMatchUdevType=tablet\r\nAttrTabletSmoothing=0\r\n"))
        // Line 0: the file as a whole, which then has no section libinput could read.
        #expect(q.problems.map(\.location.line) == [0, 1, 2, 3])
        #expect(q.problems.dropFirst().allSatisfy { $0.message.hasPrefix("the line ends in CR") })
    }

    @Test func aFileWithoutSectionsIsAnError() {
        let q = quirks(("empty.quirks", "# only a comment\n\n"))
        #expect(q.problems == [QuirkProblem(location: QuirkLocation(file: "empty.quirks", line: 0), message: "no [Section] in the file")])
    }

    @Test func commentsAndBlankLinesAreSkipped() {
        let q = quirks(("c.quirks", "\n# c\n[Tablets] # trailing comment\nMatchUdevType=tablet   # with blanks before\n\nAttrTabletSmoothing=0\n"))
        #expect(q.problems.isEmpty, "\(q.problems)")
        #expect(q.sections.first?.name == "Tablets")
        #expect(q.tabletSmoothing(for: wacomPen).reason == .quirk(enabled: false, at: QuirkLocation(file: "c.quirks", line: 6)))
    }
}
