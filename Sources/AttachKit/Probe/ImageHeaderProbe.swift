/// Reads an image's header with libvips (no pixel is decoded) into a ``MediaInfo``.
enum ImageHeaderProbe {
    /// Fills the image fields of `info` from the header of the file at `path`.
    /// - Throws: ``VipsError`` when libvips cannot read the header.
    static func read(path: String, into info: inout MediaInfo) throws(VipsError) {
        let image = try VipsImage.load(path: path, sequential: true, failOnWarnings: false)
        info.width = image.width
        info.height = image.height
        info.bands = image.bands
        info.hasAlpha = image.hasAlpha
        info.bitDepth = image.bitsPerSample
        info.pixelFormat = image.interpretation
        info.hasICCProfile = image.has("icc-profile-data")
        info.interlaced = image.int("interlaced").map { $0 != 0 } ?? false
        info.frames = image.int("n-pages") ?? 1
        if let orientation = image.int("orientation"), (1...8).contains(orientation) {
            info.orientation = orientation
        }
        if (info.frames ?? 1) > 1, let delays = image.intArray("delay"), !delays.isEmpty {
            info.duration = Double(delays.reduce(0, +)) / 1000
            info.loop = image.int("loop")
        }
        info.codec = codec(for: info.container, heifCompression: image.string("heif-compression"))
    }

    /// The codec name of a still-image format; HEIF and AVIF name their bitstream codec.
    static func codec(for container: Container, heifCompression: String?) -> Codec {
        switch container {
        case .heic, .heif, .heifSequence: return heifCompression.map { Codec($0) } ?? .hevc
        case .avif: return .av1
        default: return Codec(container.rawValue)
        }
    }
}
