// SPDX-License-Identifier: Apache-2.0
import CLibInput
import Glibc
import InkCore
import Logging

/// What the seat reports: a device came or went, an input event, or a key.
public enum SeatEvent: Sendable, Equatable {
    case added(DeviceInfo)
    case removed(device: Int)
    case input(InkEvent)
    /// A keyboard key (evdev code, linux/input-event-codes.h), seat-wide: pressed when the first
    /// keyboard presses it, released when the last lets go. Keys are not ink: never recorded.
    case key(code: UInt32, pressed: Bool, time: Double)
}

/// libinput on a udev seat: opens the devices itself (root or the `input` group), reports
/// hotplug, and translates tablet-tool, touch and tablet-pad events into `InkEvent`s with the
/// `.inklog` semantics, so a live session and its recording are the same thing.
/// `exclusive` takes every device it opens with EVIOCGRAB: the kernel's own input handlers (the
/// VT keyboard with Ctrl-Alt-Fn and Ctrl-Alt-Del, SysRq) then never see its events.
public final class LibinputSeat {
    private let udev: OpaquePointer
    private let li: OpaquePointer
    private let sink: UnsafeMutablePointer<ik_log_sink>
    private var ids: [Int: Int] = [:]            // libinput device address → our device id
    private var handles: [Int: OpaquePointer] = [:]
    private var nextID = 1
    private let translator = EventTranslator()
    /// libinput's own messages, e.g. why it ignored a device; and devices that could not be
    /// grabbed, for `inkkiosk devices`. The newest only: a glitching device can make libinput
    /// talk for months. Each also goes to the log, at its own priority.
    private var recentMessages = RecentLines(limit: LibinputSeat.messageLimit)
    public var messages: [String] { recentMessages.lines }
    /// Messages no longer kept.
    public var messagesDropped: Int { recentMessages.dropped }
    public static let messageLimit = 200
    private let exclusive: Bool
    private let log = Logger(label: "inkkiosk.input")
    /// libinput_dispatch failing (a broken descriptor) would fail at every wake-up: logged without a flood.
    private var failures = FailureLog()
    /// The device nodes held with EVIOCGRAB, by file descriptor.
    private var grabbed: [Int32: String] = [:]
    /// The device nodes this seat holds exclusively (keyboards included).
    public var exclusiveNodes: [String] { grabbed.values.sorted() }

    /// The calibration matrix (a b c d e f, as libinput and udev's LIBINPUT_CALIBRATION_MATRIX
    /// take it) for a device, by name; applied to direct devices that accept one.
    private let calibration: @Sendable (String) -> [Float]?

    public init(seat: String = "seat0", exclusive: Bool = false,
                calibration: @escaping @Sendable (String) -> [Float]? = { _ in nil }) throws {
        self.calibration = calibration
        self.exclusive = exclusive
        try Self.loadLibinput()
        guard let udev = udev_new() else { throw InputError.noUdevContext }
        sink = .allocate(capacity: 1)
        sink.initialize(to: ik_log_sink(fn: nil, ctx: nil))
        guard let li = libinput_udev_create_context(&Self.interface, sink, udev) else {
            udev_unref(udev); sink.deallocate()
            throw InputError.noLibinputContext
        }
        self.udev = udev
        self.li = li
        sink.pointee = ik_log_sink(fn: { ctx, priority, message in
            guard let ctx, let message else { return }
            let seat = Unmanaged<LibinputSeat>.fromOpaque(ctx).takeUnretainedValue()
            seat.libinputSaid(String(cString: message).trimmingCharacters(in: "\n"), priority: priority)
        }, ctx: Unmanaged.passUnretained(self).toOpaque())
        ik_libinput_install_log(li, Self.libinputPriority(for: log.logLevel))
        guard libinput_udev_assign_seat(li, seat) == 0 else {
            throw InputError.seatRefused(seat: seat)
        }
    }

    /// libinput, which the kiosk does not link (CLibInput's libinput.c): loaded by the first seat,
    /// on the thread that opens it.
    static func loadLibinput() throws {
        var error: UnsafePointer<CChar>?
        guard ik_libinput_load(&error) == 0 else {
            throw InputError.libinputNotLoaded(reason: error.map { String(cString: $0) })
        }
    }

    deinit {
        for handle in handles.values { libinput_device_unref(handle) }
        sink.pointee.ctx = nil   // libinput closes its devices below: no callbacks into a seat being freed
        libinput_unref(li)
        udev_unref(udev)
        sink.deallocate()
    }

    /// Poll this for readability; then call `dispatch`.
    public var fileDescriptor: Int32 { libinput_get_fd(li) }

    /// Every device currently on the seat, by our id.
    var deviceHandles: [(id: Int, device: OpaquePointer)] {
        handles.compactMap { key, h in ids[key].map { ($0, h) } }.sorted { $0.id < $1.id }
    }

    /// The lowest priority libinput is asked to send for the log's threshold.
    static func libinputPriority(for level: Logger.Level) -> libinput_log_priority {
        switch level {
        case .trace, .debug: LIBINPUT_LOG_PRIORITY_DEBUG
        case .info, .notice: LIBINPUT_LOG_PRIORITY_INFO
        case .warning, .error, .critical: LIBINPUT_LOG_PRIORITY_ERROR
        }
    }

    /// The log level of a libinput message, by its priority.
    static func level(ofLibinputPriority priority: Int32) -> Logger.Level {
        switch priority {
        case Int32(LIBINPUT_LOG_PRIORITY_ERROR.rawValue): .error
        case Int32(LIBINPUT_LOG_PRIORITY_INFO.rawValue): .info
        default: .debug
        }
    }

    private func libinputSaid(_ message: String, priority: Int32) {
        recentMessages.append(message)
        log.log(level: Self.level(ofLibinputPriority: priority), "libinput: \(message)")
    }

    /// Reads what the kernel has and returns it, translated, in kernel-time order.
    public func dispatch() -> [SeatEvent] {
        let what = "reading input events (libinput_dispatch)"
        let result = libinput_dispatch(li)
        // The clock is read only when there is something to log: this runs at every input wake-up.
        if result < 0 {
            if let line = failures.failed(what, errno: -result, now: monotonicNow()) { log.error("\(line)") }
        } else if failures.isFailing(what), let line = failures.succeeded(what, now: monotonicNow()) {
            log.notice("\(line)")
        }
        var out: [SeatEvent] = []
        while let event = libinput_get_event(li) {
            defer { libinput_event_destroy(event) }
            guard let device = libinput_event_get_device(event) else { continue }
            let key = Int(bitPattern: UnsafeRawPointer(device))
            switch libinput_event_get_type(event) {
            case LIBINPUT_EVENT_DEVICE_ADDED:
                guard let info = add(device, key: key) else { continue }
                out.append(.added(info))
            case LIBINPUT_EVENT_DEVICE_REMOVED:
                if let id = ids.removeValue(forKey: key) {
                    if let h = handles.removeValue(forKey: key) { libinput_device_unref(h) }
                    out.append(.removed(device: id))
                }
            case LIBINPUT_EVENT_KEYBOARD_KEY:
                if let k = keyEvent(event) { out.append(k) }
            default:
                guard let id = ids[key], let e = translator.translate(event, device: id) else { continue }
                out.append(.input(e))
            }
        }
        return out.inKernelTimeOrder()
    }

    /// Only a key's first press and last release on the seat count: a key held on two
    /// keyboards is one key held.
    private func keyEvent(_ event: OpaquePointer) -> SeatEvent? {
        guard let k = libinput_event_get_keyboard_event(event) else { return nil }
        let pressed = libinput_event_keyboard_get_key_state(k) == LIBINPUT_KEY_STATE_PRESSED
        guard libinput_event_keyboard_get_seat_key_count(k) == (pressed ? 1 : 0) else { return nil }
        return .key(code: libinput_event_keyboard_get_key(k), pressed: pressed,
                    time: Double(libinput_event_keyboard_get_time_usec(k)) / 1e6)
    }

    private func add(_ device: OpaquePointer, key: Int) -> DeviceInfo? {
        guard kind(of: device) != nil else { return nil }  // keyboards, mice: not ours
        let id = nextID
        nextID += 1
        ids[key] = id
        handles[key] = libinput_device_ref(device)
        if var matrix = calibration(String(cString: libinput_device_get_name(device))), matrix.count == 6, libinput_device_config_calibration_has_matrix(device) != 0 {
            let status = libinput_device_config_calibration_set_matrix(device, &matrix)
            if status != LIBINPUT_CONFIG_STATUS_SUCCESS {
                let line = "\(String(cString: libinput_device_get_name(device))): calibration matrix refused"
                recentMessages.append(line)
                log.warning("\(line)")
            }
        }
        return describe(device, id: id)
    }

    private func kind(of device: OpaquePointer) -> DeviceKind? {
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TABLET_TOOL) != 0 { return .tablet }
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TOUCH) != 0 { return .touch }
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TABLET_PAD) != 0 { return .pad }
        return nil
    }

    func describe(_ device: OpaquePointer, id: Int) -> DeviceInfo {
        var w = 0.0, h = 0.0
        if libinput_device_get_size(device, &w, &h) != 0 || w <= 0 || h <= 0 { w = 160; h = 100 }
        let kind = kind(of: device) ?? .tablet
        // Touchscreens are direct; a tablet is a screen tablet when libinput lets it be calibrated.
        let direct = kind == .touch || (kind == .tablet && libinput_device_config_calibration_has_matrix(device) != 0)
        return DeviceInfo(id: id, kind: kind, name: String(cString: libinput_device_get_name(device)),
                          widthMM: w, heightMM: h, direct: direct)
    }

    /// Takes a node libinput just opened exclusively, in lockdown. A grab that fails (another
    /// program holds the device) is reported, not fatal: that program gets the keys, not the console.
    private func opened(_ fd: Int32, path: String) {
        guard exclusive else { return }
        if ik_evdev_grab(fd, 1) == 0 {
            grabbed[fd] = path
        } else {
            let line = "cannot take \(path) exclusively (EVIOCGRAB: \(Errno.describe(errno)))"
            recentMessages.append(line)
            log.warning("\(line)")
        }
    }

    /// The seat behind libinput's user data (the log sink, whose context is the seat).
    private static func seat(_ userData: UnsafeMutableRawPointer?) -> LibinputSeat? {
        guard let ctx = userData?.assumingMemoryBound(to: ik_log_sink.self).pointee.ctx else { return nil }
        return Unmanaged<LibinputSeat>.fromOpaque(ctx).takeUnretainedValue()
    }

    /// libinput opens device nodes through us; an error is returned as -errno.
    /// Never written: a `var` only so that `&Self.interface` hands libinput a fixed address, which it
    /// keeps and only reads, from whichever thread calls into it.
    nonisolated(unsafe) private static var interface = libinput_interface(
        open_restricted: { path, flags, data in
            guard let path else { return -EINVAL }
            let fd = open(path, flags | O_CLOEXEC)
            guard fd >= 0 else { return -errno }
            seat(data)?.opened(fd, path: String(cString: path))
            return fd
        },
        close_restricted: { fd, data in
            seat(data)?.grabbed[fd] = nil   // closing the fd ends the grab
            _ = close(fd)
        })
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
