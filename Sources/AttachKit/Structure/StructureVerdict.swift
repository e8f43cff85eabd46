/// The outcome of a cheap structural check of a file's layout (no decoding): whether the parts a
/// format requires are there and fit in the file. What iOS reports as "attachment corrupt"
/// (`UNError.Code.attachmentCorrupt`, 105) is usually a file that fails here.
enum StructureVerdict: Sendable, Equatable {
    /// Every required part is present and inside the file.
    case intact
    /// The layout is broken; `reason` says where and how (offsets in bytes). A file that holds no
    /// sample at all (a fragmented MP4's init segment, a WAV with an empty `data` chunk) is broken
    /// too, whatever its header declares: its reason starts with "no samples".
    case corrupt(reason: String)
    /// Damage outside every frame, page or sample, which players skip (``SkippedBytes``): junk
    /// between or around them, a last packet cut short, a box claiming more bytes than the file
    /// holds while every sample is inside it; or an end cut off between whole pages (an Ogg
    /// stream without its end-of-stream page: players play the pages there). `reason` says what
    /// and where. Not broken for a player: `validate` warns, `prepare` writes a clean copy.
    case recoverable(reason: String)
    /// The layout holds more parts than a cap allows (a TIFF's pages over
    /// ``SafetyLimits/maxFrames``): not broken, refused before decoding.
    case overCap(SafetyViolation)
    /// The media is encrypted (CENC `encv`/`enca` sample entries, `sinf`, `senc`, `pssh`;
    /// FairPlay `drms`): well formed, but nothing can play it in a notification.
    case encrypted(reason: String)
    /// A codec or image item type the decoders here (FFmpeg 5.1, libheif 1.15) cannot decode:
    /// not known to be broken, but it cannot be verified or converted; `reason` names it.
    case undecodable(reason: String)
    /// AttachKit has no structural check for this format (a `--deep` decode still can check it).
    case notChecked
}

extension StructureVerdict {
    /// Not found broken, encrypted, undecodable nor over a cap (intact, recoverable, or no check
    /// exists for the format).
    var isIntactOrUnchecked: Bool {
        switch self {
        case .intact, .recoverable, .notChecked: return true
        case .corrupt, .overCap, .encrypted, .undecodable: return false
        }
    }

    /// The prefix of every "no samples" reason, so each format words it the same way.
    static func noSamples(_ detail: String) -> StructureVerdict {
        .corrupt(reason: "no samples: \(detail)")
    }

    /// The wording every "cannot decode here" refusal shares: `what` names the codec or item type,
    /// `decoder` the library that lacks it (default FFmpeg 5.1).
    static func cannotDecode(_ what: String, decoder: String = "FFmpeg 5.1") -> StructureVerdict {
        .undecodable(reason: cannotDecodeReason(what, decoder: decoder))
    }

    /// The text of ``cannotDecode(_:decoder:)`` (also what the probe says of such a picture).
    static func cannotDecodeReason(_ what: String, decoder: String = "FFmpeg 5.1") -> String {
        "\(what): \(decoder) cannot decode it, so it cannot be verified or converted here"
    }
}
