/// What thumbnail to render.
public struct ThumbnailRequest: Sendable, Equatable {
    /// Long edge of the thumbnail in pixels. Default 320.
    public var size: Int
    /// The region to show, normalized (as `ThumbnailClippingRectKey`); `nil` = the whole picture.
    public var clip: ClippingRect?
    /// Frame of an animated image (as `ThumbnailTimeKey` for animated images); `nil` = the first.
    public var frame: Int?
    /// Time in seconds for a movie (as `ThumbnailTimeKey` for movies); `nil` = a representative
    /// default (1 s, or the middle of clips shorter than 2 s).
    public var time: Double?
    /// JPEG quality of the thumbnail. Default 80.
    public var quality: Int

    public init(size: Int = 320, clip: ClippingRect? = nil, frame: Int? = nil, time: Double? = nil, quality: Int = 80) {
        self.size = size
        self.clip = clip
        self.frame = frame
        self.time = time
        self.quality = quality
    }
}

/// A rendered thumbnail, before it is written.
struct RenderedThumbnail: Sendable {
    /// JPEG bytes.
    let jpeg: [UInt8]
    let width: Int
    let height: Int
    /// The frame shown (animated images).
    var frame: Int?
    /// The time shown, seconds (movies): where the decoded frame really is.
    var time: Double?
}

/// Renders a thumbnail of one kind of media as JPEG bytes, upright (EXIF orientation or the video
/// rotation tag applied), clipped to ``ThumbnailRequest/clip`` and then scaled to fit
/// ``ThumbnailRequest/size``.
protocol ThumbnailRendering: Sendable {
    /// - Parameter limits: the caps the input passed; decoders are bounded by them too.
    func render(path: String, info: MediaInfo, request: ThumbnailRequest, limits: SafetyLimits,
                deadline: Deadline) throws(PrepareError) -> RenderedThumbnail
}
