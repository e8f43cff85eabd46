/// What a rule looks at: the probed file, the extension it will travel with, and its structure.
struct ValidationSubject: Sendable {
    let info: MediaInfo
    /// Lower-cased extension of the file name, without the dot ("" when there is none).
    let fileExtension: String
    let structure: StructureVerdict
}

/// One check of a file against a profile. Rules are small values listed in order in
/// ``Validator/rules``; each returns nothing when it has nothing to say.
protocol ValidationRule: Sendable {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic]
}

/// Sentences used in the `fix` of diagnostics, so every rule proposes cures the same way.
enum Fix {
    /// The format `prepare` converts an image to, as ``ImageFormatStep`` decides it, said from the
    /// header: GIF for an animation; PNG for a greyscale TIFF or BMP (line art); for a picture with
    /// an alpha channel, PNG unless that channel is fully opaque, which only decoding tells (then
    /// JPEG); else JPEG.
    static func imageTarget(_ info: MediaInfo) -> String {
        if info.isAnimated { return "GIF" }
        let alpha = info.hasAlpha == true
        if let bands = info.bands, bands - (alpha ? 1 : 0) == 1, ImageFormatStep.losslessSources.contains(info.container) {
            return "PNG"
        }
        return alpha ? "PNG (JPEG if its alpha channel is fully opaque)" : "JPEG"
    }

    static func convertImage(_ info: MediaInfo) -> String {
        if let raw = info.cameraRaw {
            return "convert the \(info.container.rawValue.uppercased())'s embedded JPEG preview (\(raw.previewWidth)×\(raw.previewHeight))→\(imageTarget(info))"
        }
        return "convert \(info.container.rawValue.uppercased())→\(imageTarget(info))"
    }

    static func name(_ codec: Codec) -> String {
        switch codec {
        case .h264: return "H.264"
        case .hevc: return "HEVC"
        case .vp8: return "VP8"
        case .vp9: return "VP9"
        case .av1: return "AV1"
        case .aac: return "AAC"
        case .mp3: return "MP3"
        case .opus: return "Opus"
        case .vorbis: return "Vorbis"
        case .flac: return "FLAC"
        case .alac: return "ALAC"
        case .mpeg4: return "MPEG-4 Part 2"
        case .mpeg1video: return "MPEG-1 video"
        case .mpeg2video: return "MPEG-2 video"
        case .mjpeg: return "Motion JPEG"
        case "mpegh_3d_audio": return "MPEG-H 3D Audio"
        case "ac4": return "AC-4"
        case "dts": return "DTS"
        default: return codec.rawValue.uppercased()
        }
    }

    /// The codec's name with a profile iOS does not decode (`AAC Main`); the plain name otherwise.
    static func name(_ codec: Codec, profile: Int?) -> String {
        guard codec == .aac, let profile, profile != CodecProfile.aacLow else { return name(codec) }
        return name(codec) + " " + CodecProfile.name(profile, codec: codec)
    }

    static func seconds(_ s: Double) -> String {
        if let whole = Int(exactly: s) { return "\(whole) s" }
        return "\((s * 10).rounded() / 10) s"
    }
}
