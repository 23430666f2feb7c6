// SPDX-License-Identifier: Apache-2.0
extension Duration {
    /// The duration in seconds, as a Double (for frame timing figures).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
