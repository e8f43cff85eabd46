/// The outcome of a cheap structural check of a file's layout (no decoding): whether the parts a
/// format requires are there and fit in the file. What iOS reports as "attachment corrupt"
/// (`UNError.Code.attachmentCorrupt`, 105) is usually a file that fails here.
enum StructureVerdict: Sendable, Equatable {
    /// Every required part is present and inside the file.
    case intact
    /// The layout is broken; `reason` says where and how (offsets in bytes).
    case corrupt(reason: String)
    /// The layout holds more parts than a cap allows (a TIFF's pages over
    /// ``SafetyLimits/maxFrames``): not broken, refused before decoding.
    case overCap(SafetyViolation)
    /// AttachKit has no structural check for this format (a `--deep` decode still can check it).
    case notChecked
}

extension StructureVerdict {
    /// Not found broken nor over a cap (intact, or no check exists for the format).
    var isIntactOrUnchecked: Bool {
        switch self {
        case .intact, .notChecked: return true
        case .corrupt, .overCap: return false
        }
    }
}
