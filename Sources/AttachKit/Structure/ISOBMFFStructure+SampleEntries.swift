extension ISOBMFFStructure {
    /// Sample entries read from one `stsd` box (hostile counts stop here).
    private static let maximumSampleEntries = 64

    /// Sample entry types of encrypted tracks: CENC (ISO/IEC 23001-7, `cenc`/`cbcs`/`cens`/`cbc1`
    /// schemes in the entry's `sinf`) renames the entry `encv`, `enca`, `enct`, `encs`, `encm` or
    /// `encf`; Apple's FairPlay (iTunes purchases) uses `drms` (audio) and `drmi` (video).
    static let encryptedSampleEntries: Set<String> = ["encv", "enca", "enct", "encs", "encm", "encf", "drms", "drmi"]

    /// Boxes that only encrypted media carries: `pssh` (a DRM system's key request data, in `moov`
    /// or `moof`) and `senc` (per-sample IVs, in `traf` or `stbl`).
    static let encryptionBoxes: Set<String> = ["pssh", "senc"]

    /// Sample entry types FFmpeg 5.1 has no demuxer mapping or decoder for, named for people.
    static let undecodableSampleEntries: [String: String] = [
        "vvc1": "VVC (H.266) video", "vvi1": "VVC (H.266) video", "iamf": "IAMF (immersive audio)",
    ]

    /// Audio object types (ISO/IEC 14496-3) FFmpeg 5.1's AAC decoder refuses with "not implemented".
    static let undecodableAudioObjectTypes: [Int: String] = [42: "xHE-AAC (USAC, audio object type 42)"]

    /// Every sample entry of every `stsd` box in `descriptions` (the headers of the boxes an
    /// `stsd` lists after its version, flags and entry count).
    /// - Throws: ``StructureProblem`` for an entry that does not fit in its `stsd`.
    static func sampleEntries(_ reader: borrowing FileReader, in descriptions: [Box]) throws(StructureProblem) -> [Box] {
        var entries: [Box] = []
        for stsd in descriptions {
            var position = stsd.dataOffset + 8
            var count = 0
            while position + 8 <= stsd.end, count < maximumSampleEntries {
                let entry = try header(reader, at: position, end: stsd.end)
                entries.append(entry)
                position = entry.end
                count += 1
            }
        }
        return entries
    }

    /// Why the movie is encrypted (``encryption(_:entries:marker:)``), from the box tree alone —
    /// for a header libavformat cannot read; what the walk met before any damage counts. `nil`
    /// for clear media.
    /// - Parameter scanning: also look for a `schm` box by its bytes where the tree hides it
    ///   (``protectionSchemeScan(_:)``: up to 64 MiB read); default `true`. The probe of a header
    ///   libavformat did read passes `false`: the walk finds what a readable header declares.
    static func encryptionReason(_ reader: borrowing FileReader, scanning: Bool = true) -> String? {
        var seen = BoxSummary()
        do throws(StructureProblem) { try walk(reader, from: 0, to: reader.size, depth: 0, seen: &seen) } catch {}
        let entries = (try? sampleEntries(reader, in: seen.sampleDescriptions)) ?? []
        return encryption(reader, entries: entries, marker: seen.encryptionMarker) ?? (scanning ? protectionSchemeScan(reader) : nil)
    }

    /// Schemes of Common Encryption (ISO/IEC 23001-7) a `schm` box names.
    static let encryptionSchemes: Set<String> = ["cenc", "cbcs", "cens", "cbc1"]

    /// A `schm` box naming a Common Encryption scheme, found by its bytes (`schm`, 4 bytes of
    /// version and flags, the scheme) in the first 64 MiB, wherever the damaged box tree hides
    /// it (a `moov` claiming more than the file holds is never walked into); `nil` when none.
    static func protectionSchemeScan(_ reader: borrowing FileReader) -> String? {
        var offset: Int64 = 0
        let piece = 1 << 20, overlap = 11
        while offset < min(reader.size, 64 << 20) {
            let bytes = reader.read(at: offset, count: piece + overlap)
            guard bytes.count >= 12 else { return nil }
            for i in 0...(bytes.count - 12) where bytes[i] == 0x73 && bytes.matches("schm", at: i) {
                let scheme = bytes.ascii(i + 8, 4)
                if encryptionSchemes.contains(scheme) {
                    return "a 'schm' box at byte \(offset + Int64(i) - 4) names the protection scheme '\(scheme)'"
                }
            }
            offset += Int64(piece)
        }
        return nil
    }

    /// Why the movie is encrypted: an encrypted sample entry (``encryptedSampleEntries``, its
    /// scheme named from `sinf/schm` when present), or a `pssh`/`senc` box (`marker`, the first the
    /// walk met); `nil` for clear media.
    static func encryption(_ reader: borrowing FileReader, entries: [Box], marker: Box?) -> String? {
        if let entry = entries.first(where: { encryptedSampleEntries.contains($0.type) }) {
            let scheme = protectionScheme(reader, entry: entry).map { ", scheme '\($0)'" } ?? ""
            return "sample entry '\(entry.type)' at byte \(entry.offset) is encrypted\(scheme)"
        }
        if let box = marker {
            return "'\(box.type)' box at byte \(box.offset) (DRM key or sample-encryption data)"
        }
        return nil
    }

    /// The scheme type (`cenc`, `cbcs`...) of the `sinf/schm` inside an encrypted sample entry,
    /// found by scanning the entry's bytes (its fixed fields differ by kind). At most 4 KB read.
    private static func protectionScheme(_ reader: borrowing FileReader, entry: Box) -> String? {
        let bytes = reader.read(at: entry.dataOffset, count: Int(min(entry.size - entry.headerSize, 4096)))
        guard bytes.count >= 16 else { return nil }
        for at in 4...(bytes.count - 12) where bytes.matches("schm", at: at) {
            return bytes.ascii(at + 8, 4)
        }
        return nil
    }

    /// A codec the sample entries declare that FFmpeg 5.1 cannot decode (``undecodableSampleEntries``,
    /// or an `mp4a` whose `esds` gives an ``undecodableAudioObjectTypes`` object type):
    /// ``StructureVerdict/undecodable(reason:)`` naming it; `nil` when every entry is one FFmpeg
    /// may decode.
    static func undecodableCodec(_ reader: borrowing FileReader, entries: [Box]) -> StructureVerdict? {
        for entry in entries {
            if let name = undecodableSampleEntries[entry.type] {
                return .cannotDecode("\(name) ('\(entry.type)' sample entry at byte \(entry.offset))")
            }
            if entry.type == "mp4a", let objectType = audioObjectType(reader, entry: entry),
               let name = undecodableAudioObjectTypes[objectType] {
                return .cannotDecode("\(name) in the 'mp4a' sample entry at byte \(entry.offset)")
            }
        }
        return nil
    }

    /// The MPEG-4 audio object type in the AudioSpecificConfig of an `mp4a` entry's `esds` (also
    /// inside a QuickTime `wave` box): 5 bits, 31 escaping to 32 + the next 6 bits. Scans at most
    /// 4 KB of the entry for the `esds` box; `nil` when there is none or it is cut short.
    static func audioObjectType(_ reader: borrowing FileReader, entry: Box) -> Int? {
        let bytes = reader.read(at: entry.dataOffset, count: Int(min(entry.size - entry.headerSize, 4096)))
        guard bytes.count > 12, let at = (4..<(bytes.count - 4)).first(where: { bytes.matches("esds", at: $0) }) else { return nil }
        var cursor = DescriptorCursor(bytes: Array(bytes[(at + 8)...]))  // after the type, version and flags
        guard cursor.enter(tag: 3), cursor.skip(2), let flags = cursor.byte() else { return nil }
        if flags & 0x80 != 0 { guard cursor.skip(2) else { return nil } }
        if flags & 0x40 != 0 { guard let length = cursor.byte(), cursor.skip(Int(length)) else { return nil } }
        if flags & 0x20 != 0 { guard cursor.skip(2) else { return nil } }
        guard cursor.enter(tag: 4), cursor.skip(13), cursor.enter(tag: 5),
              let first = cursor.byte(), let second = cursor.byte() else { return nil }
        let objectType = Int(first >> 3)
        return objectType == 31 ? 32 + Int((first & 0x07) << 3 | second >> 5) : objectType
    }
}

/// What a walk of the box tree noted on its way, in constant memory: the sample descriptions
/// (`stsd`, a few per movie, at most ``limit``), the first box only encrypted media carries, and
/// whether the movie declares tracks.
struct BoxSummary {
    static let limit = 64
    private(set) var sampleDescriptions: [ISOBMFFStructure.Box] = []
    private(set) var encryptionMarker: ISOBMFFStructure.Box?
    private(set) var hasTracks = false
    /// Why a top-level `mdat` was cut to the file's end (``ISOBMFFStructure/overclaimingMediaData(_:at:end:)``).
    var overclaim: String?
    /// Where junk after the last top-level box starts (``ISOBMFFStructure/walk(_:from:to:depth:seen:)``).
    var trailingJunk: Int64?

    mutating func note(_ box: ISOBMFFStructure.Box) {
        switch box.type {
        case "stsd" where sampleDescriptions.count < Self.limit: sampleDescriptions.append(box)
        case "trak": hasTracks = true
        case let type where encryptionMarker == nil && ISOBMFFStructure.encryptionBoxes.contains(type): encryptionMarker = box
        default: break
        }
    }
}

/// Reads MPEG-4 descriptors (ISO/IEC 14496-1: a tag byte, then a length of 1 to 4 bytes with 7 bits
/// each) from the body of an `esds` box.
private struct DescriptorCursor {
    let bytes: [UInt8]
    var position = 0

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count else { return false }
        position += count
        return true
    }

    /// Steps into the descriptor at the cursor when its tag is `tag` (past its tag and length).
    mutating func enter(tag: UInt8) -> Bool {
        guard byte() == tag else { return false }
        for _ in 0..<4 {
            guard let next = byte() else { return false }
            if next & 0x80 == 0 { return true }
        }
        return true
    }
}
