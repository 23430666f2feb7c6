// SPDX-License-Identifier: Apache-2.0
import CLibUdev
import Glibc

/// Tells when a screen is plugged or unplugged: udev's "change" events of the drm subsystem.
public final class ConnectorMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

    public init() throws {
        guard let udev = udev_new() else { throw DisplayError.noUdevContext }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev); throw DisplayError.noUdevMonitor
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", nil)
        udev_monitor_enable_receiving(monitor)
        self.udev = udev
        self.monitor = monitor
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Poll this for readability; then call `drain`.
    public var fileDescriptor: Int32 { udev_monitor_get_fd(monitor) }

    /// Reads every pending event; true if any may have changed a connector.
    public func drain() -> Bool {
        var changed = false
        while let device = udev_monitor_receive_device(monitor) {
            if let action = udev_device_get_action(device), String(cString: action) == "change" { changed = true }
            udev_device_unref(device)
        }
        return changed
    }
}
