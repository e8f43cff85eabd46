extension UniformType {
    /// Every type AttachKit knows, in lookup order (the first type listing an extension owns it).
    public static let known: [UniformType] = {
        var types: [UniformType] = []
        for row in FormatTable.rows {
            for type in [row.type, row.audioType].compactMap({ $0 }) where !types.contains(type) { types.append(type) }
        }
        return types
    }()

    /// The type iOS gives a file with this extension (case-insensitive, without the dot), or `nil`
    /// when the extension names no media type.
    public static func forExtension(_ fileExtension: String) -> UniformType? {
        let ext = fileExtension.lowercased()
        return known.first { $0.preferredExtension == ext } ?? known.first { $0.extensions.contains(ext) }
    }

    /// The types this one conforms to besides itself, as in Apple's UTType hierarchy where it matters
    /// for attachments (an M4V file is an MPEG-4 movie; AIFF-C is AIFF; HEIC is HEIF).
    public var supertypes: [UniformType] {
        switch self {
        case .m4v: return [.mpeg4Movie]
        case .aifc: return [.aiff]
        case .heic: return [.heif]
        case .mpeg4Audio: return [.mpeg4Movie]
        default: return []
        }
    }

    /// Whether this type is `other` or conforms to it.
    public func conforms(to other: UniformType) -> Bool {
        self == other || supertypes.contains(other)
    }
}
