/// A path (or file name) compared byte for byte, as Linux compares names: the key for anything
/// that stands for one file.
///
/// Swift's `String` equates canonically equivalent texts, so `"é"` (U+00E9) and `"e\u{301}"` are
/// `==` and hash alike, though on ext4 they name two different files: a `[String: ...]` keyed by
/// paths merges them, and sorting them leaves their order to chance. ``CaselessName`` is the
/// other comparison, for names that *some* file system would merge.
package struct ExactPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The path, its bytes exactly as the file system gave them.
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (lhs: ExactPath, rhs: ExactPath) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)
    }

    /// Byte order (UTF-8 code units): the same on every run, whatever the normalization.
    package static func < (lhs: ExactPath, rhs: ExactPath) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    package var description: String { text }
}

extension Sequence where Element == String {
    /// The paths in byte order (``ExactPath``), the same on every run.
    package func sortedExactly() -> [String] {
        map(ExactPath.init).sorted().map(\.text)
    }
}
