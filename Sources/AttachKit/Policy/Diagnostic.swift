/// One finding of validation: a stable code, what is wrong, and what would cure it.
public struct Diagnostic: Sendable, Equatable {
    /// Stable identifiers of findings. Where iOS has an equivalent error, ``iosErrorCode`` gives it.
    public enum Code: String, Sendable, CaseIterable {
        /// The bytes are not a media format iOS (or AttachKit) recognises; iOS: 101 unrecognized type.
        case unrecognizedType = "unrecognized-type"
        /// A known format the profile does not allow (WebP, HEIC under `apple`, Ogg...); iOS: 101.
        case unsupportedType = "unsupported-type"
        /// The container is allowed but a codec inside it is not (VP9 in MP4, Opus audio...), or
        /// the decoders here cannot decode it (xHE-AAC, VVC, a HEIF `unci` item: not verified).
        case unsupportedCodec = "unsupported-codec"
        /// The codec is one iOS plays but not in this variant (H.264 High 10 or 4:2:2, HEVC 4:4:4,
        /// a 12-bit JPEG): see ``Playability``. `prepare` re-encodes it.
        case unsupportedCodecProfile = "unsupported-codec-profile"
        /// The extension gives iOS a different type than the bytes have; iOS reads the type from it.
        case extensionMismatch = "extension-mismatch"
        /// No extension at all: iOS cannot tell the type without a type hint.
        case missingExtension = "missing-extension"
        /// Over the profile's byte limit; iOS: 102 invalid file size.
        case fileTooLarge = "file-too-large"
        /// The file is empty; iOS: 102 invalid file size.
        case emptyFile = "empty-file"
        /// An MP4/MOV whose every video (or every audio) track is disabled in its `tkhd` flags:
        /// iOS shows no picture (or plays no sound) of it, though every decoder here reads it.
        /// `prepare` remuxes it, which enables the tracks.
        case disabledTrack = "disabled-track"
        /// Damage players step over (junk between Ogg pages or MP3 frames, a last transport stream
        /// packet cut short, an `mdat` claiming more than the file holds while every sample is
        /// inside it, an Ogg stream whose whole pages stop without its end-of-stream page): a
        /// warning; `prepare` writes a clean copy of what is there.
        case recoverableDamage = "recoverable-damage"
        /// Broken layout or undecodable data, or no samples at all; iOS: 105 attachment corrupt.
        case corrupt = "corrupt"
        /// Encrypted (DRM-protected) media: nothing can play it in a notification.
        case encrypted = "encrypted"
        /// Long edge over the profile's cap.
        case dimensionsTooLarge = "dimensions-too-large"
        /// Width × height over the profile's cap.
        case tooManyPixels = "too-many-pixels"
        /// The decoded bitmap (width × height × 4 bytes) would not fit the extension's memory budget.
        case decodedSizeTooLarge = "decoded-size-too-large"
        /// More animation frames than the profile allows.
        case tooManyFrames = "too-many-frames"
        /// Longer than the profile's duration cap.
        case durationTooLong = "duration-too-long"
        /// More attachments in one notification request than the profile allows.
        case tooManyAttachments = "too-many-attachments"
        /// Within the limits but over the recommended size (a warning: downloads eat the ~30 s budget).
        case largerThanRecommended = "larger-than-recommended"
        /// The file could not be read at all (permissions, not a file, outside the allowed scope).
        case unreadable = "unreadable"
        /// (`--deep`) Over a ``SafetyLimits`` cap (pixels, frames, decode memory...): refused before
        /// any decoding, as `prepare` and `thumbnail` refuse it.
        case overCap = "over-cap"
        /// `prepare --thumbnail` could not render the thumbnail (a warning: the attachment is fine).
        case thumbnailFailed = "thumbnail-failed"

        /// The `UNError.Code` iOS would raise for this finding, when it has one.
        public var iosErrorCode: Int? {
            switch self {
            case .unrecognizedType, .unsupportedType, .extensionMismatch, .missingExtension: return 101
            case .fileTooLarge, .emptyFile: return 102
            case .corrupt: return 105
            default: return nil
            }
        }
    }

    public enum Severity: String, Sendable {
        /// The attachment fails: iOS would refuse it, or it breaks the profile's limits.
        case error
        /// Worth knowing; does not fail validation.
        case warning
    }

    public let code: Code
    public let severity: Severity
    /// What is wrong, with the numbers (e.g. "4032×3024 px, long edge over 2048 px").
    public let message: String
    /// What would cure it (e.g. "downscale to 2048 px"); `nil` when nothing can.
    public let fix: String?

    public init(_ code: Code, _ message: String, fix: String?, severity: Severity = .error) {
        self.code = code
        self.message = message
        self.fix = fix
        self.severity = severity
    }

    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("code", code.rawValue)
        if severity == .warning { o.set("severity", severity.rawValue) }
        o.set("message", message)
        o.set("fix", fix)
        o.set("iosError", code.iosErrorCode)
        return o.value
    }
}
