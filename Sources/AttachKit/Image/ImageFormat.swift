/// The formats the image pipeline writes.
enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case gif
    /// An HEVC-coded HEIF still (only when the input is HEIC/HEIF and the profile allows it).
    case heic

    /// The container of the bytes written (chooses the output's extension).
    var container: Container {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .heic: return .heic
        }
    }

    var uniformType: UniformType {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .heic: return .heic
        }
    }

    /// Whether `profile` allows images of this format.
    func isAllowed(by profile: Profile) -> Bool {
        Profile.allows(profile.image.types, uniformType)
    }

    /// The format of an input container, when the pipeline can write it.
    init?(container: Container) {
        switch container {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .gif: self = .gif
        case .heic, .heif: self = .heic
        default: return nil
        }
    }
}

/// Encoded bytes and how they were made.
struct EncodedImage: Sendable {
    var bytes: [UInt8]
    var format: ImageFormat
    var width: Int
    var height: Int
    /// JPEG/HEIC quality, when the format has one.
    var quality: Int?
    /// Palette size (GIF, palette PNG).
    var colours: Int?

    var size: Int64 { Int64(bytes.count) }
}
