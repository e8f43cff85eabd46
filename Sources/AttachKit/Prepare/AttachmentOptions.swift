/// The `UNNotificationAttachment` options a payload should carry for a prepared file.
public struct AttachmentOptions: Sendable, Equatable {
    /// `UNNotificationAttachmentOptionsTypeHintKey`: the UTI of the bytes.
    public var typeHint: String
    /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`: a normalized rect (0...1).
    public var clippingRect: ClippingRect?
    /// `UNNotificationAttachmentOptionsThumbnailTimeKey` for a movie: seconds.
    public var thumbnailTime: Double?
    /// `UNNotificationAttachmentOptionsThumbnailTimeKey` for an animated image: a frame number.
    public var thumbnailFrame: Int?
    /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`.
    public var thumbnailHidden: Bool

    public init(typeHint: String, clippingRect: ClippingRect? = nil, thumbnailTime: Double? = nil,
                thumbnailFrame: Int? = nil, thumbnailHidden: Bool = false) {
        self.typeHint = typeHint
        self.clippingRect = clippingRect
        self.thumbnailTime = thumbnailTime
        self.thumbnailFrame = thumbnailFrame
        self.thumbnailHidden = thumbnailHidden
    }

    /// Keys as iOS names them, so a server can copy them into a payload.
    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("UNNotificationAttachmentOptionsTypeHintKey", typeHint)
        if let rect = clippingRect { o.set("UNNotificationAttachmentOptionsThumbnailClippingRectKey", rect.json) }
        if let time = thumbnailTime {
            o.set("UNNotificationAttachmentOptionsThumbnailTimeKey", (time * 1000).rounded() / 1000)
        } else if let frame = thumbnailFrame {
            o.set("UNNotificationAttachmentOptionsThumbnailTimeKey", frame)
        }
        o.set("UNNotificationAttachmentOptionsThumbnailHiddenKey", thumbnailHidden)
        return o.value
    }
}

/// A rectangle in unit coordinates (0...1 on both axes, origin top-left), as
/// `ThumbnailClippingRectKey` expects: x .25 y .25 w .5 h .5 is the centre.
public struct ClippingRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    /// - Throws: ``ClippingRectError`` unless 0 ≤ x, y; 0 < width, height; x + width ≤ 1; y + height ≤ 1.
    public init(x: Double, y: Double, width: Double, height: Double) throws(ClippingRectError) {
        let values = [x, y, width, height]
        guard values.allSatisfy(\.isFinite), x >= 0, y >= 0, width > 0, height > 0,
              x + width <= 1.000001, y + height <= 1.000001 else {
            throw ClippingRectError(text: "\(x),\(y),\(width),\(height)")
        }
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Parses `x,y,w,h`.
    public init(parsing text: String) throws(ClippingRectError) {
        let parts = text.split(separator: ",").map { Double($0.trimmingPrefix(" ")) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
            throw ClippingRectError(text: text)
        }
        try self.init(x: x, y: y, width: w, height: h)
    }

    /// The whole picture.
    public static let full = try! ClippingRect(x: 0, y: 0, width: 1, height: 1)

    /// `{"X", "Y", "Width", "Height"}`: the keys of a CGRect dictionary representation, so the app
    /// can read it with `CGRect(dictionaryRepresentation:)`.
    public var json: JSONValue {
        .object([("X", .number(x)), ("Y", .number(y)), ("Width", .number(width)), ("Height", .number(height))])
    }
}

/// A clipping rect outside the unit square or not four numbers.
public struct ClippingRectError: Error, Sendable, Equatable, CustomStringConvertible {
    public let text: String

    /// What a clipping rect must be.
    public static let expected = "x,y,w,h in 0...1 with x+w ≤ 1 and y+h ≤ 1 (normalized, as ThumbnailClippingRectKey expects)"

    public var description: String { "clip \(text.debugDescription) must be \(Self.expected)" }
}
