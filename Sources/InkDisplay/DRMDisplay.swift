import CLibDRM
import Glibc
import InkCore
import InkRender

/// The screen through DRM/KMS: the first connected connector (or a named one) in its preferred
/// mode (or a named one), two dumb buffers flipped with page-flip events. Frames are drawn in
/// RAM; only damaged rectangles are copied into the back buffer. With two buffers the back
/// buffer is two frames old, so it also receives the previous frame's damage.
public final class DRMDisplay: Display, CursorPlane {
    public let card: DRMCard
    public let connector: ConnectorInfo
    public let size: PixelSize
    public let refreshHz: Int
    private let crtcID: UInt32
    private var mode: drmModeModeInfo
    private var buffers: [DumbBuffer] = []
    private var front = 0
    private var previousDamage: [Rect] = []
    private var savedCrtc: UnsafeMutablePointer<drmModeCrtc>?
    private var modeSet = false
    private var dirtyFBSupported = true
    /// Whether the connector has a screen; while it has none, frames stay in RAM.
    public private(set) var connected = true
    /// A page flip was requested and has not completed: the next frame must wait.
    public private(set) var flipPending = false
    private lazy var cursor = DRMCursor(fd: card.fd, crtc: crtcID)
    /// Called when a flip completes, with the vblank time (CLOCK_MONOTONIC seconds).
    public var onFlipComplete: ((Double) -> Void)?

    public init(cardPath: String? = nil, connectorName: String? = nil, modeName: String? = nil) throws {
        let (card, found) = try Self.find(cardPath: cardPath, connectorName: connectorName, modeName: modeName)
        self.card = card
        (connector, mode, crtcID) = found
        size = PixelSize(width: Int(mode.hdisplay), height: Int(mode.vdisplay))
        refreshHz = Int(mode.vrefresh)
        savedCrtc = drmModeGetCrtc(card.fd, crtcID)
        buffers = try [DumbBuffer(fd: card.fd, width: size.width, height: size.height),
                       DumbBuffer(fd: card.fd, width: size.width, height: size.height)]
    }

    /// The first card (or the named one) with a connected connector (or the named one).
    private static func find(cardPath: String?, connectorName: String?, modeName: String?) throws
        -> (DRMCard, (ConnectorInfo, drmModeModeInfo, UInt32)) {
        let paths = cardPath.map { [$0] } ?? DRMCard.all()
        guard !paths.isEmpty else { throw DisplayError("no DRM card in /dev/dri (is the GPU driver loaded?)") }
        var lastError: Error = DisplayError("no connected connector on \(paths.joined(separator: ", "))")
        for path in paths {
            do {
                let card = try DRMCard(path: path)
                if let found = try pick(card, connectorName: connectorName, modeName: modeName) { return (card, found) }
            } catch { lastError = error }
        }
        throw lastError
    }

    deinit {
        if let saved = savedCrtc {
            var connectorID = connector.id
            if saved.pointee.mode_valid != 0 {
                drmModeSetCrtc(card.fd, saved.pointee.crtc_id, saved.pointee.buffer_id, saved.pointee.x, saved.pointee.y,
                               &connectorID, 1, &saved.pointee.mode)
            }
            drmModeFreeCrtc(saved)
        }
    }

    /// Poll this for readability (page-flip events); then call `handleEvents`.
    public var fileDescriptor: Int32 { card.fd }

    private static func pick(_ card: DRMCard, connectorName: String?, modeName: String?) throws
        -> (ConnectorInfo, drmModeModeInfo, UInt32)? {
        guard let res = drmModeGetResources(card.fd) else { throw DisplayError.errno("\(card.path) has no KMS resources") }
        defer { drmModeFreeResources(res) }
        for i in 0..<Int(res.pointee.count_connectors) {
            guard let c = drmModeGetConnector(card.fd, res.pointee.connectors[i]) else { continue }
            defer { drmModeFreeConnector(c) }
            let info = DRMCard.info(c)
            if let connectorName, info.name != connectorName { continue }
            guard info.connected, c.pointee.count_modes > 0 else {
                if connectorName != nil { throw DisplayError("connector \(info.name) on \(card.path) is not connected") }
                continue
            }
            let modes = (0..<Int(c.pointee.count_modes)).map { c.pointee.modes[$0] }
            let chosen: drmModeModeInfo
            if let modeName {
                guard let m = modes.first(where: { "\($0.hdisplay)x\($0.vdisplay)" == modeName || "\($0.hdisplay)x\($0.vdisplay)@\($0.vrefresh)" == modeName }) else {
                    throw DisplayError("\(info.name) has no mode \(modeName) (it has \(info.modes.joined(separator: ", ")))")
                }
                chosen = m
            } else {
                chosen = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
            }
            guard let crtc = crtcFor(c, res, card.fd) else { throw DisplayError("no CRTC can drive \(info.name) on \(card.path)") }
            return (info, chosen, crtc)
        }
        return nil
    }

    private static func crtcFor(_ c: UnsafeMutablePointer<drmModeConnector>, _ res: UnsafeMutablePointer<drmModeRes>, _ fd: Int32) -> UInt32? {
        if let enc = drmModeGetEncoder(fd, c.pointee.encoder_id) {
            defer { drmModeFreeEncoder(enc) }
            if enc.pointee.crtc_id != 0 { return enc.pointee.crtc_id }
        }
        for e in 0..<Int(c.pointee.count_encoders) {
            guard let enc = drmModeGetEncoder(fd, c.pointee.encoders[e]) else { continue }
            defer { drmModeFreeEncoder(enc) }
            for k in 0..<Int(res.pointee.count_crtcs) where enc.pointee.possible_crtcs & (1 << k) != 0 {
                return res.pointee.crtcs[k]
            }
        }
        return nil
    }

    /// Shows the frame: damaged rectangles into the back buffer, then a page flip (or, the first
    /// time, the mode set). Call only when `flipPending` is false.
    public func present(_ frame: ImageSurface, damage: DamageRegion) throws {
        guard connected else { return }
        let backIndex = modeSet ? 1 - front : front
        let back = buffers[backIndex]
        let rects = modeSet ? damage.rects + previousDamage : [Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))]
        frame.withPixels { data, stride in back.copy(from: data, stride: stride, rects: rects) }
        previousDamage = damage.rects
        if dirtyFBSupported { markDirty(back, rects) }
        if !modeSet {
            var connectorID = connector.id
            guard drmModeSetCrtc(card.fd, crtcID, back.framebuffer, 0, 0, &connectorID, 1, &mode) == 0 else {
                throw DisplayError.errno("cannot set mode \(size)@\(refreshHz) on \(connector.name)")
            }
            modeSet = true
            return
        }
        let ptr = Unmanaged.passUnretained(self).toOpaque()
        guard drmModePageFlip(card.fd, crtcID, back.framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), ptr) == 0 else {
            throw DisplayError.errno("page flip on \(connector.name) failed")
        }
        flipPending = true
        front = backIndex
    }

    /// Some drivers (virtual and USB displays) only update what they are told is dirty.
    private func markDirty(_ buffer: DumbBuffer, _ rects: [Rect]) {
        var clips = rects.map { r in
            drmModeClip(x1: UInt16(max(0, r.minX)), y1: UInt16(max(0, r.minY)),
                        x2: UInt16(min(Double(size.width), r.maxX)), y2: UInt16(min(Double(size.height), r.maxY)))
        }
        let r = drmModeDirtyFB(card.fd, buffer.framebuffer, &clips, UInt32(clips.count))
        if r == -ENOSYS || r == -EOPNOTSUPP { dirtyFBSupported = false }
    }

    /// Reads page-flip completions.
    public func handleEvents() {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, sec, usec, data in
            guard let data else { return }
            let display = Unmanaged<DRMDisplay>.fromOpaque(data).takeUnretainedValue()
            display.flipPending = false
            display.onFlipComplete?(Double(sec) + Double(usec) / 1e6)
        }
        drmHandleEvent(card.fd, &context)
    }

    public var cursorSize: Int { DRMCursor.size }
    public var hasCursorPlane: Bool { cursor.supported }
    public func showCursor(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool {
        modeSet && cursor.show(image, hotspot: hotspot, at: location)
    }
    public func moveCursor(to location: Point, hotspot: (x: Int, y: Int)) { cursor.move(to: location, hotspot: hotspot) }
    public func hideCursor() { cursor.hide() }

    public enum ConnectorChange: Sendable { case none, unplugged, replugged }

    /// After a hotplug event: an unplugged screen stops the flips; a screen plugged back gets the
    /// mode set again (the same size, so the picture in RAM still fits) and the whole picture.
    public func checkConnector() -> ConnectorChange {
        guard let c = drmModeGetConnector(card.fd, connector.id) else { return .none }
        defer { drmModeFreeConnector(c) }
        let isConnected = c.pointee.connection == DRM_MODE_CONNECTED && c.pointee.count_modes > 0
        if connected && !isConnected {
            connected = false
            flipPending = false   // a flip to a gone screen may never complete
            return .unplugged
        }
        if !connected && isConnected {
            let modes = (0..<Int(c.pointee.count_modes)).map { c.pointee.modes[$0] }
            let sameSize = modes.filter { Int($0.hdisplay) == size.width && Int($0.vdisplay) == size.height }
            guard let m = sameSize.first(where: { $0.vrefresh == mode.vrefresh }) ?? sameSize.first else { return .none }
            mode = m
            modeSet = false
            connected = true
            return .replugged
        }
        return .none
    }

    /// Gives the display up (VT switched away) or takes it back; after taking it back the whole
    /// screen is set again on the next frame.
    public func release() { drmDropMaster(card.fd); modeSet = false; flipPending = false }
    public func acquire() { drmSetMaster(card.fd) }
}
