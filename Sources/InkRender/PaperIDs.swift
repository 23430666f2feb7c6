// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Numbers for papers made anywhere (a worksheet page rendered on another thread): a page's
/// snapshot names the paper it was painted on, and no two papers share a number. They start
/// far above the backdrop's generations, which count from 0.
public enum PaperIDs {
    private static let last = Atomic<Int>(1 << 40)
    public static func next() -> Int { last.add(1, ordering: .relaxed).newValue }
}
