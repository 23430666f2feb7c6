// SPDX-License-Identifier: Apache-2.0
/// Why the input side could not start, with what a technician needs to fix it; a failed system
/// call is a `SystemCallError` with its errno and device.
public enum InputError: Error, CustomStringConvertible, Equatable {
    case noUdevContext
    case noLibinputContext
    /// libinput_udev_assign_seat refused: no udev, or no right to read /dev/input.
    case seatRefused(seat: String)
    /// libinput is loaded when the seat opens; the loader's reason, when it could not be.
    case libinputNotLoaded(reason: String?)

    public var description: String {
        switch self {
        case .noUdevContext: "cannot create a udev context"
        case .noLibinputContext: "cannot create a libinput context"
        case .seatRefused(let seat):
            "cannot assign libinput to seat '\(seat)' (is udev running, and may this user read /dev/input? root or the 'input' group is needed)"
        case .libinputNotLoaded(let reason): reason ?? "cannot load libinput"
        }
    }
}
