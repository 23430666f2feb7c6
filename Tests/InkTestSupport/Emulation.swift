// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The arm64 unit tests run under user-mode emulation (qemu-aarch64, `scripts/arm64/test.sh`),
/// where code is 10–30 times slower and a long CPU-bound test holds one of the few threads that
/// every other test waits for. Tests that make thousands of cases make fewer there, with the
/// same checks; the native run keeps the full count (and `make fuzz` goes much further).
public enum Emulation {
    /// Set by the arm64 test script.
    public static let isActive = getenv("INKKIOSK_TESTS_EMULATED") != nil

    /// `n` natively, an eighth of it (at least one) under emulation.
    public static func cases(_ n: Int) -> Int { isActive ? max(1, n / 8) : n }
}
