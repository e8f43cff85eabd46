/// The cheap "is this file corrupt?" check: the layout a format requires (headers, boxes, chunks,
/// frames) must be present and inside the file. What iOS reports as `attachmentCorrupt` (105) is
/// usually a file that fails here.
///
/// Each format family has its own small checker (`JPEGStructure`, `RIFFStructure`...); this type
/// only picks the one ``FormatTable`` names for the sniffed container. No pixel or sample is decoded (``DeepCheck`` does
/// that). Every checker reads with bounds-checked `pread`s, scans at most linearly in constant
/// memory and never trusts a length field for an allocation, so any bytes at all are safe to check.
enum StructureChecker {
    /// Cheap structural check chosen by the sniffed container; reads headers/box/chunk/frame
    /// layout only (linear scan at most, constant memory). Never crashes on any bytes.
    ///
    /// - Returns: ``StructureVerdict/corrupt(reason:)`` with byte offsets when the layout is broken
    ///   (a truncated file is corrupt); ``StructureVerdict/notChecked`` for containers without a
    ///   checker (APE, AMR, MPEG-PS, JPEG XL, text...) and for a file that can no longer be opened
    ///   (the probe reports unreadable files); ``StructureVerdict/overCap(_:)`` when the layout
    ///   has more parts than `limits` allow (a TIFF's pages over ``SafetyLimits/maxFrames``).
    static func check(path: String, sniff: FormatSniffer.Result, limits: SafetyLimits = SafetyLimits()) -> StructureVerdict {
        guard let reader = try? FileReader(path: path) else { return .notChecked }
        switch sniff.container.facts?.structure ?? StructureCheck.none {
        case .jpeg: return JPEGStructure.check(reader, maxPixels: limits.maxPixels)
        case .png: return PNGStructure.check(reader, maxPixels: limits.maxPixels)
        case .gif: return GIFStructure.check(reader, maxPixels: limits.maxPixels)
        case .riff: return RIFFStructure.check(reader)
        case .aiff: return AIFFStructure.check(reader)
        case .isoBaseMedia: return ISOBMFFStructure.check(reader, path: path, container: sniff.container, limits: limits)
        case .matroska: return MatroskaStructure.check(reader)
        case .mpegAudio: return MPEGAudioStructure.check(reader, from: sniff.audioOffset)
        case .adts: return ADTSStructure.check(reader, from: sniff.audioOffset)
        case .flac: return FLACStructure.check(reader, from: sniff.audioOffset)
        case .ogg: return OggStructure.check(reader)
        case .transportStream: return TransportStreamStructure.check(reader)
        case .tiff: return TIFFStructure.check(reader, maxPages: limits.maxFrames)
        case .bmp: return BMPStructure.check(reader)
        case .qoi: return RasterStructure.checkQOI(reader)
        case .sunRaster: return RasterStructure.checkSunRaster(reader)
        case .proTracker: return ProTrackerStructure.check(reader)
        case .screamTracker: return TrackerModuleStructure.checkScreamTracker(reader)
        case .fastTracker: return TrackerModuleStructure.checkFastTracker(reader)
        case .impulseTracker: return TrackerModuleStructure.checkImpulseTracker(reader)
        case .cameraRaw: return CameraRawStructure.check(reader, container: sniff.container, limits: limits)
        case .none: return .notChecked
        }
    }
}

/// A structural problem found deep inside a walk, thrown up to the format's `check` and turned
/// into ``StructureVerdict/corrupt(reason:)`` there.
struct StructureProblem: Error {
    /// What is wrong and where (byte offsets).
    let reason: String

    init(_ reason: String) { self.reason = reason }
}

extension StructureChecker {
    /// Whether every byte from `start` up to `end` is zero: padding some writers leave at the end of
    /// a file or container, harmless to players. Reads in 64 KiB pieces.
    static func isZeroFilled(_ reader: borrowing FileReader, from start: Int64, to end: Int64) -> Bool {
        var position = start
        while position < end {
            let piece = reader.read(at: position, count: Int(min(end - position, 1 << 16)))
            guard !piece.isEmpty else { return false }
            guard piece.allSatisfy({ $0 == 0 }) else { return false }
            position += Int64(piece.count)
        }
        return true
    }
}
