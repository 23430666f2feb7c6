import CLibInput
import Glibc
import InkCore

/// What the seat reports: a device came or went, or an input event.
public enum SeatEvent: Sendable, Equatable {
    case added(DeviceInfo)
    case removed(device: Int)
    case input(InkEvent)
}

/// libinput on a udev seat: opens the devices itself (root or the `input` group), reports
/// hotplug, and translates tablet-tool, touch and tablet-pad events into `InkEvent`s with the
/// `.inklog` semantics, so a live session and its recording are the same thing.
public final class LibinputSeat {
    private let udev: OpaquePointer
    private let li: OpaquePointer
    private let sink: UnsafeMutablePointer<ik_log_sink>
    private var ids: [Int: Int] = [:]            // libinput device address → our device id
    private var handles: [Int: OpaquePointer] = [:]
    private var nextID = 1
    private let translator = EventTranslator()
    /// libinput's own messages, e.g. why it ignored a device.
    public private(set) var messages: [String] = []

    /// The calibration matrix (a b c d e f, as libinput and udev's LIBINPUT_CALIBRATION_MATRIX
    /// take it) for a device, by name; applied to direct devices that accept one.
    private let calibration: @Sendable (String) -> [Float]?

    public init(seat: String = "seat0", calibration: @escaping @Sendable (String) -> [Float]? = { _ in nil }) throws {
        self.calibration = calibration
        guard let udev = udev_new() else { throw InputError("cannot create a udev context") }
        sink = .allocate(capacity: 1)
        sink.initialize(to: ik_log_sink(fn: nil, ctx: nil))
        guard let li = libinput_udev_create_context(&Self.interface, sink, udev) else {
            udev_unref(udev); sink.deallocate()
            throw InputError("cannot create a libinput context")
        }
        self.udev = udev
        self.li = li
        sink.pointee = ik_log_sink(fn: { ctx, priority, message in
            guard let ctx, let message else { return }
            let seat = Unmanaged<LibinputSeat>.fromOpaque(ctx).takeUnretainedValue()
            seat.messages.append(String(cString: message).trimmingCharacters(in: "\n"))
        }, ctx: Unmanaged.passUnretained(self).toOpaque())
        ik_libinput_install_log(li)
        guard libinput_udev_assign_seat(li, seat) == 0 else {
            throw InputError("cannot assign libinput to seat '\(seat)' (is udev running, and may this user read /dev/input? root or the 'input' group is needed)")
        }
    }

    deinit {
        for handle in handles.values { libinput_device_unref(handle) }
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

    /// Reads what the kernel has and returns it, translated.
    public func dispatch() -> [SeatEvent] {
        libinput_dispatch(li)
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
            default:
                guard let id = ids[key], let e = translator.translate(event, device: id) else { continue }
                out.append(.input(e))
            }
        }
        return out
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
                messages.append("\(String(cString: libinput_device_get_name(device))): calibration matrix refused")
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

    /// libinput opens device nodes through us; an error is returned as -errno.
    nonisolated(unsafe) private static var interface = libinput_interface(
        open_restricted: { path, flags, _ in
            guard let path else { return -EINVAL }
            let fd = open(path, flags | O_CLOEXEC)
            return fd < 0 ? -errno : fd
        },
        close_restricted: { fd, _ in _ = close(fd) })
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
