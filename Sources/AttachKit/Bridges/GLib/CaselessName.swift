import CVips

/// The key under which two file names are the same name on some file system: canonical caseless
/// matching (Unicode §3.13, D145: NFD(casefold(NFD(name)))), through GLib's `g_utf8_normalize`
/// and `g_utf8_casefold`, which every process links through libvips.
///
/// ext4 keeps `é` (U+00E9) and `e` + U+0301 apart, and `a.jpg` and `A.JPG`; macOS (APFS, HFS+)
/// and SMB volumes fold them into one file. Outputs planned under this key never merge on any of
/// them.
enum CaselessName {
    /// The key of `name`: equal for names that differ only in letter case or Unicode normalization.
    static func key(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return asciiLowercased(name) }
        return normalized(folded(normalized(name)))
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
