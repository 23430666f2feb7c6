// SPDX-License-Identifier: Apache-2.0
/// One input device as libinput's quirks see it: what the kernel and udev say about it, and
/// the machine it is in. Plain values, so quirks can be matched without a device.
public struct DeviceIdentity: Sendable, Equatable {
    /// The kernel's device name (what `MatchName` globs against).
    public var name: String
    /// The kernel's unique id (often a serial number); nil when the device has none.
    public var uniq: String?
    /// The kernel's bus number (BUS_USB 0x03, BUS_I2C 0x18, … in linux/input.h).
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// udev's input classes (ID_INPUT_TABLET=1 and the like).
    public var udevTypes: Set<UdevInputType>
    /// /sys/class/dmi/id/modalias; nil on machines without DMI (most ARM boards).
    public var dmiModalias: String?
    /// The first entry of /sys/firmware/devicetree/base/compatible; nil without a device tree.
    public var deviceTreeCompatible: String?

    public init(name: String, uniq: String? = nil, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0,
                version: UInt16 = 0, udevTypes: Set<UdevInputType> = [], dmiModalias: String? = nil,
                deviceTreeCompatible: String? = nil) {
        self.name = name
        self.uniq = uniq
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.udevTypes = udevTypes
        self.dmiModalias = dmiModalias
        self.deviceTreeCompatible = deviceTreeCompatible
    }

    /// Whether `MatchUdevType=type` holds. libinput counts a pointing stick as a mouse too.
    func isUdevType(_ type: UdevInputType) -> Bool {
        udevTypes.contains(type) || (type == .mouse && udevTypes.contains(.pointingstick))
    }
}

/// udev's input classes, by the names `MatchUdevType` uses.
public enum UdevInputType: String, Sendable, CaseIterable {
    case touchpad, mouse, pointingstick, keyboard, joystick, tablet
    case tabletPad = "tablet-pad"
    case touchscreen

    /// The udev property that puts a device in this class (set to 1).
    public var udevProperty: String {
        switch self {
        case .touchpad: "ID_INPUT_TOUCHPAD"
        case .mouse: "ID_INPUT_MOUSE"
        case .pointingstick: "ID_INPUT_POINTINGSTICK"
        case .keyboard: "ID_INPUT_KEYBOARD"
        case .joystick: "ID_INPUT_JOYSTICK"
        case .tablet: "ID_INPUT_TABLET"
        case .tabletPad: "ID_INPUT_TABLET_PAD"
        case .touchscreen: "ID_INPUT_TOUCHSCREEN"
        }
    }
}

/// The buses `MatchBus` names; libinput matches no other.
public enum QuirkBus: String, Sendable, CaseIterable {
    case usb, bluetooth, ps2, rmi, i2c, spi

    /// The kernel's number for it (linux/input.h).
    public var number: UInt16 {
        switch self {
        case .usb: 0x03
        case .bluetooth: 0x05
        case .ps2: 0x11      // BUS_I8042
        case .i2c: 0x18
        case .spi: 0x1C
        case .rmi: 0x1D
        }
    }
}
