// SPDX-License-Identifier: Apache-2.0
// String trimming without Foundation's trimmingCharacters(in:) and CharacterSet (Foundation
// proper, which links ICU; the kiosk links FoundationEssentials only).

extension StringProtocol {
    /// Without leading and trailing white space (spaces, tabs), as
    /// `trimmingCharacters(in: .whitespaces)`.
    public func trimmingSpaces() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// Without leading and trailing white space and line ends, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`.
    public func trimmingSpacesAndNewlines() -> String { trimming(\.isWhitespace) }

    private func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}
