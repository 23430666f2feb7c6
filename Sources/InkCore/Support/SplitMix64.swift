// SPDX-License-Identifier: Apache-2.0
/// A small, fast random generator with a seed (SplitMix64): the same "random" drawing, soak day
/// or test case on every run, which `SystemRandomNumberGenerator` cannot give.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0 ..< n (0 when n ≤ 0).
    public mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    /// 0 ..< 1.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
