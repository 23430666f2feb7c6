// SPDX-License-Identifier: Apache-2.0
/// Tells a click (press and release, short) from a hold, per button.
/// A click is decided on release, so a hold never fires a click action.
struct ButtonClicks: Sendable {
    private var pressedAt: [Int: Double] = [:]
    private var spoiled: Set<Int> = []

    var held: Set<Int> { Set(pressedAt.keys) }

    mutating func press(_ button: Int, at time: Double) {
        pressedAt[button] = time
        spoiled.remove(button)
    }

    /// The pen touched the surface while the button was held: not a click (unless allowed).
    mutating func spoilHeldButtons() { spoiled.formUnion(pressedAt.keys) }

    /// True when the release completes a click.
    mutating func release(_ button: Int, at time: Double, maxDuration: Double) -> Bool {
        guard let start = pressedAt.removeValue(forKey: button) else { return false }
        let wasSpoiled = spoiled.remove(button) != nil
        return !wasSpoiled && time - start <= maxDuration
    }

    mutating func reset() { pressedAt = [:]; spoiled = [] }
}
