// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkLoop

/// A value made on a thread of its own while this one does something else, then taken once: the
/// kiosk's start opens the display beside the configuration's read, the journal beside the
/// pipeline's set-up, and the seat (libinput loaded, its quirks and udev's devices read) after the
/// first frame, while the loop goes on.
/// `result` is used only under `done`, which also hands the value (Sendable or not) from the making thread,
/// done with it by then, to the taker.
public final class StartedElsewhere<Value>: @unchecked Sendable {
    private let done = Condition()
    private var result: Result<Value, any Error>?

    /// Runs `make` on a new thread; if no thread can be started, runs it here. `made` is called
    /// on that thread once the value (or its error) can be taken: it may wake the taker.
    public init(name: String, made: (@Sendable () -> Void)? = nil, _ make: @escaping () throws -> Value) {
        let box = UncheckedBox(make)
        if !startThread(name: name, { [self] in finish(Result { try box.value() }); made?() }) {
            finish(Result { try make() })
            made?()
        }
    }

    /// Waits for the value (or rethrows what making it threw). The value moves to the caller:
    /// from here on only the caller's thread touches it, and nothing here keeps it alive (a
    /// display dropped by its taker closes its card at once). Taken once; a second take throws.
    public func take() throws -> Value {
        done.lock()
        defer { done.unlock() }
        while result == nil { done.wait() }
        defer { result = .failure(TakenAlready()) }
        return try result!.get()
    }

    struct TakenAlready: Error {}

    private func finish(_ made: Result<Value, any Error>) {
        done.lock()
        result = made
        done.signal()
        done.unlock()
    }
}

/// Carries a closure that is not Sendable to the one thread that runs it. The creating thread never
/// calls it (it calls `make` itself only when no thread was started).
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
