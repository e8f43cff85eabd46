/// What preparation did to a file, in the order it was done. Reports list every action; the
/// last one that changed the bytes is the headline (`action`).
public enum PrepareAction: String, Sendable, CaseIterable {
    /// The input already satisfied the profile: a byte-identical copy.
    case passthrough
    /// Same bytes, new name: the extension now matches the content.
    case renamed
    /// Same codec streams in a new container (MOV→MP4, MKV→MP4), index at the front.
    case remuxed
    /// Pixels reduced to the profile's caps.
    case downscaled
    /// Turned upright per EXIF orientation or the video rotation tag.
    case rotated
    /// A format iOS will not show turned into one it will (WebP→JPEG, HEIC→JPEG...).
    case converted
    /// Same format, encoded again (quality or palette) to fit the byte budget.
    case reencoded
    /// Audio/video decoded and encoded with other codecs (VP9→H.264, FLAC→AAC).
    case transcoded
    /// Cut to the duration budget.
    case trimmed
    /// Animation frames removed evenly (total duration kept).
    case framesDropped = "frames-dropped"
    /// Animation palette reduced.
    case colorsReduced = "colors-reduced"
    /// Metadata (EXIF, XMP, ICC after conversion) removed.
    case metadataStripped = "metadata-stripped"

    /// Whether the action changes the bytes (everything but passthrough and renaming does).
    var changesBytes: Bool { self != .passthrough && self != .renamed }
}
