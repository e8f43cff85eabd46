/// What a file holds, as a notification attachment sees it.
public enum MediaKind: String, Sendable, CaseIterable, Codable {
    /// A still or animated picture (JPEG, PNG, GIF, HEIF, WebP...).
    case image
    /// Sound only (cover art does not make a file a video).
    case audio
    /// Moving pictures, with or without sound.
    case video
    /// Bytes AttachKit does not recognise as media.
    case unknown
}
