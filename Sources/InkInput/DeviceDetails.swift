// SPDX-License-Identifier: Apache-2.0
import CLibInput
import FoundationEssentials
import Glibc
import InkCore

/// What `inkkiosk devices` tells a technician about one input device.
public struct DeviceDetails: Sendable {
    public var info: DeviceInfo
    public var node: String
    /// Whether the kernel reports the device's physical size (resolution); pads often do not.
    public var sizeKnown: Bool
    /// Tablet axes the hardware reports (pressure, distance, tilt, …).
    public var axes: [String]
    /// Pen buttons and tools (stylus, stylus2, eraser end).
    public var buttons: [String]
    public var touchSlots: Int?
    public var padButtons: Int?
    public var padRings: Int?
    public var padStrips: Int?
    /// Tablets: whether libinput averages the pen's positions, and which quirk line decided.
    public var smoothing: TabletSmoothing?
}

extension LibinputSeat {
    /// Every device on the seat with its capabilities, read from libinput and the kernel (sysfs).
    public func details() -> [DeviceDetails] {
        let quirks = LibinputQuirks.installed()
        return deviceHandles.map { id, device in
            let sysname = String(cString: libinput_device_get_sysname(device))
            let abs = Self.bits("/sys/class/input/\(sysname)/device/capabilities/abs")
            let key = Self.bits("/sys/class/input/\(sysname)/device/capabilities/key")
            var w = 0.0, h = 0.0
            let sized = libinput_device_get_size(device, &w, &h) == 0
            var d = DeviceDetails(info: describe(device, id: id), node: "/dev/input/\(sysname)", sizeKnown: sized,
                                  axes: [], buttons: [])
            switch d.info.kind {
            case .tablet:
                let names: [(Int, String)] = [(0x18, "pressure"), (0x19, "distance"), (0x1a, "tilt-x"), (0x1b, "tilt-y"),
                                              (0x02, "rotation (ABS_Z)"), (0x08, "wheel (ABS_WHEEL)")]
                d.axes = ["x", "y"] + names.filter { abs.contains($0.0) }.map(\.1)
                let buttons: [(Int, String)] = [(0x14b, "stylus (BTN_STYLUS)"), (0x14c, "stylus2 (BTN_STYLUS2)"),
                                                (0x149, "stylus3 (BTN_STYLUS3)"), (0x141, "eraser end (BTN_TOOL_RUBBER)")]
                d.buttons = buttons.filter { key.contains($0.0) }.map(\.1)
                d.smoothing = quirks.tabletSmoothing(for: Self.identity(of: device, sysname: sysname, name: d.info.name))
            case .touch:
                d.touchSlots = Int(libinput_device_touch_get_touch_count(device))
            case .pad:
                d.padButtons = Int(libinput_device_tablet_pad_get_num_buttons(device))
                d.padRings = Int(libinput_device_tablet_pad_get_num_rings(device))
                d.padStrips = Int(libinput_device_tablet_pad_get_num_strips(device))
            }
            return d
        }
    }

    /// The device as libinput's quirks match it: ids from sysfs, classes from udev, and the machine.
    static func identity(of device: OpaquePointer, sysname: String, name: String) -> DeviceIdentity {
        let sys = "/sys/class/input/\(sysname)/device"
        func id(_ file: String) -> UInt16 { SmallFile.text("\(sys)/id/\(file)").flatMap { UInt16($0, radix: 16) } ?? 0 }
        var types = Set<UdevInputType>()
        if let udevDevice = libinput_device_get_udev_device(device) {
            defer { udev_device_unref(udevDevice) }
            for type in UdevInputType.allCases {
                if let value = udev_device_get_property_value(udevDevice, type.udevProperty), String(cString: value) != "0" {
                    types.insert(type)
                }
            }
        }
        // compatible holds several NUL-terminated names, most specific first; libinput matches the first.
        let compatible = SmallFile.text("/sys/firmware/devicetree/base/compatible")?
            .split(separator: "\0", omittingEmptySubsequences: true).first.map(String.init)
        return DeviceIdentity(name: name, uniq: SmallFile.text("\(sys)/uniq"),
                              bus: id("bustype"), vendor: id("vendor"), product: id("product"), version: id("version"),
                              udevTypes: types, dmiModalias: SmallFile.text("/sys/class/dmi/id/modalias"),
                              deviceTreeCompatible: compatible)
    }

    /// The set bits of a sysfs capability mask ("1 0 3000003": 64-bit words, most significant first).
    static func bits(_ path: String) -> Set<Int> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var set = Set<Int>()
        for (word, hex) in text.split(whereSeparator: { $0 == " " || $0 == "\n" }).reversed().enumerated() {
            guard let v = UInt64(hex, radix: 16) else { continue }
            for bit in 0..<64 where v & (1 << UInt64(bit)) != 0 { set.insert(word * 64 + bit) }
        }
        return set
    }
}
