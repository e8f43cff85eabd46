import CVips

/// The key under which two file names are the same name on some file system: canonical caseless
/// matching (Unicode §3.13, D145: NFD(casefold(NFD(name)))), through GLib's `g_utf8_normalize`
/// and `g_utf8_casefold`, which every process links through libvips.
///
/// ext4 keeps `é` (U+00E9) and `e` + U+0301 apart, and `a.jpg` and `A.JPG`; macOS (APFS, HFS+)
/// and SMB volumes fold them into one file. HFS+ also ignores some invisible characters in a name
/// (TN1150: U+200C–U+200F, U+202A–U+202E, U+206A–U+206F, U+FEFF), so the key drops every
/// default-ignorable code point (Unicode's `Default_Ignorable_Code_Point`, a superset: dropping
/// more only merges more names, which renames, never overwrites). Outputs planned under this key
/// never merge on any of these file systems.
enum CaselessName {
    /// The key of `name`: equal for names that differ only in letter case, Unicode normalization
    /// or default-ignorable characters.
    static func key(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return asciiLowercased(name) }
        var visible = String.UnicodeScalarView()
        visible.append(contentsOf: name.unicodeScalars.filter { !isDefaultIgnorable($0) })
        return normalized(folded(normalized(String(visible))))
    }

    /// Unicode 15's `Default_Ignorable_Code_Point` ranges (DerivedCoreProperties.txt).
    private static let ignorable: [ClosedRange<UInt32>] = [
        0x00AD...0x00AD, 0x034F...0x034F, 0x061C...0x061C, 0x115F...0x1160, 0x17B4...0x17B5, 0x180B...0x180F,
        0x200B...0x200F, 0x202A...0x202E, 0x2060...0x206F, 0x3164...0x3164, 0xFE00...0xFE0F, 0xFEFF...0xFEFF,
        0xFFA0...0xFFA0, 0xFFF0...0xFFF8, 0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF,
    ]

    private static func isDefaultIgnorable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xAD && ignorable.contains { $0.contains(scalar.value) }
    }

    private static func asciiLowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// `g_utf8_normalize(name, G_NORMALIZE_NFD)`; the name itself if GLib refuses it.
    private static func normalized(_ name: String) -> String {
        guard let result = g_utf8_normalize(name, -1, G_NORMALIZE_NFD) else { return name }
        defer { g_free(result) }
        return String(cString: result)
    }

    /// `g_utf8_casefold(name)`: case folding for comparison (not for display).
    private static func folded(_ name: String) -> String {
        guard let result = g_utf8_casefold(name, -1) else { return name }
        defer { g_free(result) }
        return String(cString: result)
    }
}
