// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import Logging
import InkCore
import InkRender

/// Atomic KMS: the connector, the CRTC's mode, the primary plane and the cursor plane set in one
/// commit. A flip is a non-blocking commit of the primary plane's new buffer (with a page-flip
/// event) carrying the rectangles written into it (FB_DAMAGE_CLIPS, where the plane takes them:
/// virtual and USB displays upload only those) and the cursor plane's staged change, so the
/// preview moves with the frame it belongs to. The first mode set is tried in a test commit
/// first: a driver that refuses it is left to legacy KMS.
final class AtomicScanout: ScanoutBackend {
    private let fd: Int32
    private let crtc: KMSObject, connector: KMSObject, primary: KMSObject
    private let atomicCursor: AtomicCursor?
    private let damageClips: Bool
    /// The mode's property blob on the CRTC; replaced (and the old one destroyed) by a new mode.
    private var modeBlob: UInt32 = 0
    /// A mode set has passed (a test commit, then the real one): later ones are not tested first.
    private var verified = false
    private let log: Logger
    let summary: String

    var cursor: HardwareCursor? { atomicCursor?.supported == true ? atomicCursor : nil }

    /// Takes the card's atomic interface for `crtc` (the `crtcIndex`-th) driving `connector`;
    /// throws `AtomicUnavailable` (with the errno or the missing piece) where it cannot.
    init(fd: Int32, crtc: UInt32, crtcIndex: Int, connector: UInt32, log: Logger) throws(AtomicUnavailable) {
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0 else {
            throw .capRefused("DRM_CLIENT_CAP_UNIVERSAL_PLANES", errno: errno)
        }
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0 else {
            throw .capRefused("DRM_CLIENT_CAP_ATOMIC", errno: errno)
        }
        // Virtual GPUs (virtio-gpu, vmwgfx, qxl: Linux 6.8 on) list their cursor plane only to a
        // client that sets the hotspot with it, which the host's pointer needs; older kernels
        // refuse the cap and list the plane anyway.
        _ = drmSetClientCap(fd, Self.cursorPlaneHotspotCap, 1)
        let planes = Self.planes(fd: fd)
        let choice = PlaneChoice.choose(from: planes.map(\.info), crtc: crtc, crtcIndex: crtcIndex,
                                        frameFormat: ik_drm_format_xrgb8888(), cursorFormat: ik_drm_format_argb8888())
        guard let primaryInfo = choice.primary, let primary = planes.first(where: { $0.info.id == primaryInfo.id })?.object else {
            throw .noPrimaryPlane(crtc: crtc)
        }
        let crtcObject = try KMSObject(fd: fd, id: crtc, type: .crtc, needs: ["MODE_ID", "ACTIVE"])
        let connectorObject = try KMSObject(fd: fd, id: connector, type: .connector, needs: ["CRTC_ID"])
        try primary.require(KMSObject.planeProperties)
        self.fd = fd
        self.crtc = crtcObject
        self.connector = connectorObject
        self.primary = primary
        self.log = log
        damageClips = primary["FB_DAMAGE_CLIPS"] != nil
        let cursorObject = choice.cursor.flatMap { c in planes.first { $0.info.id == c.id }?.object }
        atomicCursor = cursorObject.flatMap { $0.has(KMSObject.planeProperties) ? AtomicCursor(fd: fd, plane: $0, log: log) : nil }
        summary = "atomic KMS (primary plane \(primary.id)"
            + (cursorObject.map { ", cursor plane \($0.id)" } ?? ", no cursor plane")
            + (damageClips ? ", damage clips)" : ", no damage clips)")
    }

    /// DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT (drm.h, Linux 6.8; newer than the headers built with).
    static let cursorPlaneHotspotCap: UInt64 = 6


    private static func planes(fd: Int32) -> [(info: PlaneInfo, object: KMSObject)] {
        guard let resources = drmModeGetPlaneResources(fd) else { return [] }
        defer { drmModeFreePlaneResources(resources) }
        return (0..<Int(resources.pointee.count_planes)).compactMap { i in
            let id = resources.pointee.planes[i]
            guard let plane = drmModeGetPlane(fd, id) else { return nil }
            defer { drmModeFreePlane(plane) }
            guard let object = try? KMSObject(fd: fd, id: id, type: .plane, needs: []) else { return nil }
            let formats = (0..<Int(plane.pointee.count_formats)).map { plane.pointee.formats[$0] }
            let info = PlaneInfo(id: id, kind: object.enumName("type").flatMap(PlaneInfo.Kind.init(rawValue:)),
                                 possibleCRTCs: plane.pointee.possible_crtcs, crtc: plane.pointee.crtc_id, formats: formats)
            return (info, object)
        }
    }

    func test(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> Int32? {
        guard !verified else { return nil }
        // No blob, no test: the mode set itself will say what is wrong.
        guard case .success(let blob) = modeBlob(mode) else { return nil }
        defer { _ = drmModeDestroyPropertyBlob(fd, blob) }
        return testCommit(blob, showing: buffer)
    }

    /// The mode set in a test commit: nil when the driver takes it (marked verified) or cannot say
    /// (without DRM master, the mode set tests again), else its errno.
    private func testCommit(_ blob: UInt32, showing buffer: DumbBuffer) -> Int32? {
        let r = commit(UInt32(DRM_MODE_ATOMIC_TEST_ONLY | DRM_MODE_ATOMIC_ALLOW_MODESET), event: nil, modeSet(blob, showing: buffer))
        if r == 0 { verified = true }
        return r == 0 || -r == EACCES || -r == EPERM ? nil : -r
    }

    /// `mode` as the property blob MODE_ID takes, or the errno that refused it.
    private func modeBlob(_ mode: drmModeModeInfo) -> Result<UInt32, SystemCallError> {
        var mode = mode
        var blob: UInt32 = 0
        let made = drmModeCreatePropertyBlob(fd, &mode, MemoryLayout<drmModeModeInfo>.size, &blob)
        return made == 0 ? .success(blob) : .failure(SystemCallError("create a mode blob (drmModeCreatePropertyBlob)", errno: -made))
    }

    /// Everything the screen shows, for a mode set: the connector on the CRTC, the mode, the
    /// primary plane with `buffer`, the cursor plane as staged (off when nothing is).
    private func modeSet(_ blob: UInt32, showing buffer: DumbBuffer) -> (AtomicRequest) -> Void {
        { [self] request in
            request.set(connector, "CRTC_ID", UInt64(crtc.id))
            request.set(crtc, "MODE_ID", UInt64(blob))
            request.set(crtc, "ACTIVE", 1)
            request.place(primary, buffer: buffer, crtc: crtc.id, at: (0, 0))
            atomicCursor?.add(to: request, crtc: crtc.id, always: true)
        }
    }

    func setMode(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> ScanoutOutcome {
        let blob: UInt32
        switch modeBlob(mode) {
        case .success(let made): blob = made
        case .failure(let error): return .failed(errno: error.errno)
        }
        // One blob for the test (when the one at open could not run) and the mode set.
        if !verified, let refused = testCommit(blob, showing: buffer) {
            _ = drmModeDestroyPropertyBlob(fd, blob)
            return .refusedByTest(errno: refused)
        }
        let r = commit(UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), event: nil, modeSet(blob, showing: buffer))
        guard r == 0 else {
            _ = drmModeDestroyPropertyBlob(fd, blob)
            return .failed(errno: -r)
        }
        verified = true
        atomicCursor?.committed()
        if modeBlob != 0 { _ = drmModeDestroyPropertyBlob(fd, modeBlob) }   // the CRTC holds its own reference
        modeBlob = blob
        return .done
    }

    func flip(to buffer: DumbBuffer, damage: [Rect], event: UnsafeMutableRawPointer) -> ScanoutOutcome {
        let clips = damageClips ? DamageClips(fd: fd, rects: damage, within: buffer) : nil
        let flags = UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
        let build: (AtomicRequest) -> Void = { [self] request in
            request.set(primary, "FB_ID", UInt64(buffer.framebuffer))
            if let blob = clips?.blob { request.set(primary, "FB_DAMAGE_CLIPS", UInt64(blob)) }
            atomicCursor?.add(to: request, crtc: crtc.id, always: false)
        }
        var r = commit(flags, event: event, build)
        if r == -EINVAL, let atomicCursor, atomicCursor.hasStagedChange {
            // The cursor plane refused this image or place: the overlay draws the preview from now on.
            atomicCursor.refused(errno: -r)
            r = commit(flags, event: event, build)
        }
        guard r == 0 else { return .failed(errno: -r) }
        atomicCursor?.committed()
        return .done
    }

    func shutDown() {
        if let atomicCursor {
            if atomicCursor.isOnScreen {
                atomicCursor.hide()
                // Blocking: the console's mode is restored with legacy KMS next, which knows no cursor plane.
                _ = commit(0, event: nil) { [self] request in atomicCursor.add(to: request, crtc: crtc.id, always: true) }
            }
            atomicCursor.freeBuffers()
        }
        if modeBlob != 0 { _ = drmModeDestroyPropertyBlob(fd, modeBlob) }
        modeBlob = 0
    }

    /// One atomic commit; 0 or a negative errno.
    private func commit(_ flags: UInt32, event: UnsafeMutableRawPointer?, _ build: (AtomicRequest) -> Void) -> Int32 {
        guard let request = AtomicRequest() else { return -ENOMEM }
        build(request)
        if let failed = request.failed { return failed }
        return drmModeAtomicCommit(fd, request.pointer, flags, event)
    }
}

/// Why atomic KMS cannot drive this screen.
enum AtomicUnavailable: Error, CustomStringConvertible, Equatable {
    /// The driver is not atomic (EOPNOTSUPP) or the kernel too old (EINVAL).
    case capRefused(String, errno: Int32)
    case noPrimaryPlane(crtc: UInt32)
    /// A property atomic KMS needs is missing on this object.
    case missingProperty(object: String, property: String)
    case unreadable(object: String, errno: Int32)

    var description: String {
        switch self {
        case .capRefused(let cap, let e): "the driver refuses \(cap) (\(Errno.describe(e)))"
        case .noPrimaryPlane(let crtc): "no free primary plane for CRTC \(crtc) takes XRGB8888"
        case .missingProperty(let object, let property): "\(object) has no \(property) property"
        case .unreadable(let object, let e): "cannot read the properties of \(object) (\(Errno.describe(e)))"
        }
    }
}

/// A KMS object's property ids by name (they differ per driver and per boot) and values now.
struct KMSObject {
    enum Kind: String {
        case plane, crtc, connector
        var objectType: UInt32 {
            switch self {
            case .plane: UInt32(truncatingIfNeeded: DRM_MODE_OBJECT_PLANE)
            case .crtc: UInt32(truncatingIfNeeded: DRM_MODE_OBJECT_CRTC)
            case .connector: UInt32(truncatingIfNeeded: DRM_MODE_OBJECT_CONNECTOR)
            }
        }
    }

    static let planeProperties = ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"]

    let id: UInt32
    let kind: Kind
    private var ids: [String: UInt32] = [:]
    private var enumNames: [String: String] = [:]

    init(fd: Int32, id: UInt32, type kind: Kind, needs: [String]) throws(AtomicUnavailable) {
        self.id = id
        self.kind = kind
        guard let properties = drmModeObjectGetProperties(fd, id, kind.objectType) else {
            throw .unreadable(object: "\(kind.rawValue) \(id)", errno: errno)
        }
        defer { drmModeFreeObjectProperties(properties) }
        for i in 0..<Int(properties.pointee.count_props) {
            let id = properties.pointee.props[i]
            var raw = [CChar](repeating: 0, count: Int(DRM_PROP_NAME_LEN))
            guard ik_drm_property_name(fd, id, &raw) == 0 else { continue }
            let name = raw.withUnsafeBytes { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            ids[name] = id
            // Enum values are read by name only where the kiosk asks for one (a plane's type).
            guard Self.enumsRead.contains(name), let p = drmModeGetProperty(fd, id) else { continue }
            defer { drmModeFreeProperty(p) }
            let value = properties.pointee.prop_values[i]
            for e in 0..<Int(p.pointee.count_enums) where p.pointee.enums[e].value == value {
                enumNames[name] = Self.text(p.pointee.enums[e].name)
            }
        }
        try require(needs)
    }

    subscript(name: String) -> UInt32? { ids[name] }

    func has(_ names: [String]) -> Bool { names.allSatisfy { ids[$0] != nil } }

    func require(_ names: [String]) throws(AtomicUnavailable) {
        if let missing = names.first(where: { ids[$0] == nil }) {
            throw .missingProperty(object: "\(kind.rawValue) \(id)", property: missing)
        }
    }

    /// The enum properties whose value `enumName` can name.
    static let enumsRead: Set<String> = ["type"]

    /// The name of an enum property's value now ("Primary" for a plane's type).
    func enumName(_ property: String) -> String? { enumNames[property] }

    /// A fixed-size C name, NUL-terminated or not, read as bytes (whatever `char`'s signedness).
    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// One atomic request being built; the first property the library refuses is kept as its errno.
final class AtomicRequest {
    let pointer: OpaquePointer
    private(set) var failed: Int32?

    init?() {
        guard let pointer = drmModeAtomicAlloc() else { return nil }
        self.pointer = pointer
    }

    deinit { drmModeAtomicFree(pointer) }

    func set(_ object: KMSObject, _ name: String, _ value: UInt64) {
        guard failed == nil else { return }
        guard let property = object[name] else { failed = -EINVAL; return }
        let r = drmModeAtomicAddProperty(pointer, object.id, property, value)
        if r < 0 { failed = r }
    }

    /// A plane showing all of `buffer` at `origin` on `crtc` (no scaling: SRC is 16.16 fixed point).
    func place(_ plane: KMSObject, buffer: DumbBuffer, crtc: UInt32, at origin: (x: Int32, y: Int32)) {
        set(plane, "FB_ID", UInt64(buffer.framebuffer))
        set(plane, "CRTC_ID", UInt64(crtc))
        set(plane, "SRC_X", 0)
        set(plane, "SRC_Y", 0)
        set(plane, "SRC_W", UInt64(buffer.width) << 16)
        set(plane, "SRC_H", UInt64(buffer.height) << 16)
        set(plane, "CRTC_X", UInt64(bitPattern: Int64(origin.x)))   // signed: a cursor may hang off the left edge
        set(plane, "CRTC_Y", UInt64(bitPattern: Int64(origin.y)))
        set(plane, "CRTC_W", UInt64(buffer.width))
        set(plane, "CRTC_H", UInt64(buffer.height))
    }

    /// The plane off.
    func clear(_ plane: KMSObject) {
        set(plane, "FB_ID", 0)
        set(plane, "CRTC_ID", 0)
    }
}

/// FB_DAMAGE_CLIPS for one commit: the rectangles written into the buffer since it was last on
/// screen (more than the frame's own damage when it missed frames, which is what a driver that
/// uploads per buffer needs). The kernel keeps its own reference: the blob goes after the commit.
private final class DamageClips {
    private let fd: Int32
    private(set) var blob: UInt32 = 0

    init(fd: Int32, rects: [Rect], within buffer: DumbBuffer) {
        self.fd = fd
        var clips = rects.compactMap { r -> drm_mode_rect? in
            let x1 = max(0, Int32(r.minX.rounded(.down))), y1 = max(0, Int32(r.minY.rounded(.down)))
            let x2 = min(Int32(buffer.width), Int32(r.maxX.rounded(.up))), y2 = min(Int32(buffer.height), Int32(r.maxY.rounded(.up)))
            return x2 > x1 && y2 > y1 ? drm_mode_rect(x1: x1, y1: y1, x2: x2, y2: y2) : nil
        }
        // No clips means "all of it" to the kernel: a buffer with nothing new gets one pixel instead.
        if clips.isEmpty { clips = [drm_mode_rect(x1: 0, y1: 0, x2: 1, y2: 1)] }
        let r = clips.withUnsafeBytes { drmModeCreatePropertyBlob(fd, $0.baseAddress, $0.count, &blob) }
        if r != 0 { blob = 0 }   // the commit goes without: the whole plane is uploaded
    }

    deinit { if blob != 0 { _ = drmModeDestroyPropertyBlob(fd, blob) } }
}

/// The atomic cursor plane: two ARGB8888 buffers (made at the first preview), the next image
/// written into the one not on screen, so a driver that uploads the cursor only when its
/// framebuffer changes (virtio-gpu) sees every new image. Staged here, committed with the frame.
final class AtomicCursor: HardwareCursor {
    private struct Placement: Equatable { var buffer: Int; var x: Int32, y: Int32; var hotspotX: Int, hotspotY: Int }

    private let fd: Int32
    private let plane: KMSObject
    private var buffers: [DumbBuffer] = []
    private var staged: Placement?, onScreen: Placement?
    private(set) var supported = true
    private let log: Logger

    init(fd: Int32, plane: KMSObject, log: Logger) {
        self.fd = fd
        self.plane = plane
        self.log = log
    }

    var hasStagedChange: Bool { staged != onScreen }
    var isOnScreen: Bool { onScreen != nil }

    func show(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool {
        guard supported else { return false }
        if buffers.isEmpty {
            do {
                buffers = try (0..<2).map { _ in
                    try DumbBuffer(fd: fd, width: DRMCursor.size, height: DRMCursor.size, format: ik_drm_format_argb8888())
                }
            } catch {
                refuse("no cursor buffers (\(error))")
                return false
            }
        }
        let target = onScreen?.buffer == 0 ? 1 : 0
        buffers[target].write(image)
        let origin = location.cursorOrigin(hotspot: hotspot)
        staged = Placement(buffer: target, x: origin.x, y: origin.y, hotspotX: hotspot.x, hotspotY: hotspot.y)
        return true
    }

    func move(to location: Point, hotspot: (x: Int, y: Int)) {
        guard staged != nil else { return }
        let origin = location.cursorOrigin(hotspot: hotspot)
        staged?.x = origin.x
        staged?.y = origin.y
        staged?.hotspotX = hotspot.x
        staged?.hotspotY = hotspot.y
    }

    func hide() { staged = nil }

    /// The plane's part of a commit: its staged state, when it changed (or `always`, in a mode set).
    func add(to request: AtomicRequest, crtc: UInt32, always: Bool) {
        guard always || hasStagedChange else { return }
        if let staged, supported {
            request.place(plane, buffer: buffers[staged.buffer], crtc: crtc, at: (staged.x, staged.y))
            if plane["HOTSPOT_X"] != nil && plane["HOTSPOT_Y"] != nil {
                request.set(plane, "HOTSPOT_X", UInt64(staged.hotspotX))
                request.set(plane, "HOTSPOT_Y", UInt64(staged.hotspotY))
            }
        } else {
            request.clear(plane)
        }
    }

    func committed() { onScreen = supported ? staged : nil }

    /// At exit, once the plane is off: the buffers go while the card is open. No preview after it.
    func freeBuffers() {
        supported = false
        staged = nil
        onScreen = nil
        buffers.removeAll()
    }

    func refused(errno e: Int32) { refuse("the cursor plane refused a commit (\(Errno.describe(e)))") }

    private func refuse(_ why: String) {
        supported = false
        staged = nil
        log.notice("\(why): the overlay draws the hover preview")
    }
}
