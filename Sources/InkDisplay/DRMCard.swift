// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import InkCore

/// A connector of a DRM card with what a technician needs to know about it.
public struct ConnectorInfo: Sendable, Equatable {
    public var id: UInt32
    public var name: String          // e.g. "HDMI-A-1", "Virtual-1"
    public var connected: Bool
    public var modes: [String]       // "1280x800@60", preferred first
    public var preferred: String?
    /// The screen's physical size from its EDID (0 when unknown, as on projectors).
    public var widthMM: Int = 0
    public var heightMM: Int = 0
}

/// A DRM card: opening it, and what it has.
public final class DRMCard {
    public let path: String
    public let fd: Int32

    public init(path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open", path: path, hint: "root or the 'video' group is needed") }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// /dev/dri/card0, card1, …: the cards present.
    public static func all() -> [String] {
        (0..<16).map { "/dev/dri/card\($0)" }.filter { access($0, F_OK) == 0 }
    }

    public var driverName: String {
        guard let v = drmGetVersion(fd) else { return "?" }
        defer { drmFreeVersion(v) }
        return v.pointee.name.map { String(cString: $0) } ?? "?"
    }

    /// Whether the driver has atomic KMS, asked by taking the capability and giving it back (this
    /// file then sees the legacy interface only, as before).
    public var hasAtomicKMS: Bool {
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0 else { return false }
        _ = drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 0)
        return true
    }

    public func connectors() -> [ConnectorInfo] {
        guard let res = drmModeGetResources(fd) else { return [] }
        defer { drmModeFreeResources(res) }
        return (0..<Int(res.pointee.count_connectors)).compactMap { i in
            guard let c = drmModeGetConnector(fd, res.pointee.connectors[i]) else { return nil }
            defer { drmModeFreeConnector(c) }
            return Self.info(c)
        }
    }

    static func info(_ c: UnsafeMutablePointer<drmModeConnector>) -> ConnectorInfo {
        let typeName = drmModeGetConnectorTypeName(c.pointee.connector_type).map { String(cString: $0) } ?? "Unknown"
        var modes: [(String, Bool)] = []
        for m in 0..<Int(c.pointee.count_modes) {
            let mode = c.pointee.modes[m]
            modes.append(("\(mode.hdisplay)x\(mode.vdisplay)@\(mode.vrefresh)", mode.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0))
        }
        let preferred = modes.first { $0.1 }?.0
        return ConnectorInfo(id: c.pointee.connector_id, name: "\(typeName)-\(c.pointee.connector_type_id)",
                             connected: c.pointee.connection == DRM_MODE_CONNECTED,
                             modes: modes.sorted { $0.1 && !$1.1 }.map(\.0), preferred: preferred,
                             widthMM: Int(c.pointee.mmWidth), heightMM: Int(c.pointee.mmHeight))
    }
}
