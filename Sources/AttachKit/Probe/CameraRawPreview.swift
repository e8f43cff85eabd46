/// The embedded JPEG a camera raw is shown as, as photo tools show a raw they cannot develop:
/// libvips 8.14 here has no camera raw decoder (no libraw), so the picture every verb works on is
/// the largest JPEG the raw embeds (``CameraRawLayout``) that libvips decodes (8-bit DCT: not the
/// lossless JPEG a CR2 or DNG codes its sensor data in), when it is a preview and not a
/// thumbnail: at least ``minimumLongEdge`` pixels on its long edge, or ``fullSizeShare`` of the
/// sensor's. A raw without one is refused by name (`unsupported`).
///
/// The preview is turned upright by the raw's own orientation (IFD0's tag 0x0112; a CR3's `CMT1`),
/// which replaces any the preview's EXIF gives (previews mostly carry none); a raw that gives none
/// (a Fujifilm RAF) keeps the preview's.
enum CameraRawPreview {
    /// A JPEG is a preview from this long edge on (enough for any notification: iOS shows
    /// attachments at most 2048 px, downscaled on the phone anyway). 1024 px.
    static let minimumLongEdge = 1024
    /// ...or from this share of the sensor's long edge (a small sensor's full-size preview). 0.5.
    static let fullSizeShare = 0.5
    /// JPEGs larger than this are not considered: a preview is read whole into memory to be
    /// decoded. 64 MiB.
    static let maximumBytes: Int64 = 64 << 20

    /// One embedded JPEG and its frame header.
    struct Candidate: Sendable, Equatable {
        let jpeg: CameraRawLayout.JPEG
        let frame: JPEGFrameHeader
    }

    /// Every JPEG of `layout` libvips decodes, within ``maximumBytes``, largest first.
    static func candidates(_ layout: CameraRawLayout, reader: borrowing FileReader) -> [Candidate] {
        var found: [Candidate] = []
        for jpeg in layout.jpegs where jpeg.length <= maximumBytes {
            guard let window = reader.window(at: jpeg.offset, count: jpeg.length), let frame = JPEGFrameHeader.read(window),
                  frame.decoder == .libvips else { continue }
            found.append(Candidate(jpeg: jpeg, frame: frame))
        }
        return found.sorted { Int64($0.frame.width) * Int64($0.frame.height) > Int64($1.frame.width) * Int64($1.frame.height) }
    }

    /// Whether `frame` is a preview rather than a thumbnail of a sensor `sensorLongEdge` pixels long.
    static func isPreview(_ frame: JPEGFrameHeader, sensorLongEdge: Int?) -> Bool {
        let edge = max(frame.width, frame.height)
        return edge >= minimumLongEdge || sensorLongEdge.map { Double(edge) >= fullSizeShare * Double($0) } == true
    }

    /// Fills `info` (whose container is a camera raw) from the raw in `reader`: the preview's size,
    /// components and orientation as the picture's, and ``MediaInfo/cameraRaw``.
    /// - Throws: ``ProbeError/corruptHeader(path:container:detail:)`` when, without a usable
    ///   preview, something the header points to (a JPEG, an IFD, the sensor data, a box) runs
    ///   past the end of the file (``CameraRawLayout/cut``): the raw was cut short;
    ///   ``ProbeError/unsupported(path:container:detail:)`` when the whole raw embeds no JPEG
    ///   preview that is read here, or only a thumbnail (saying so when SubIFDs were left unread,
    ///   ``CameraRawLayout/unread``).
    static func describe(_ reader: borrowing FileReader, into info: inout MediaInfo) throws(ProbeError) {
        let name = info.container.facts?.name ?? info.container.rawValue.uppercased()
        let layout = CameraRawLayout.read(reader, container: info.container)
        let sensorEdge = layout.flatMap { l in l.sensorWidth.flatMap { w in l.sensorHeight.map { max(w, $0) } } }
        let found = layout.map { candidates($0, reader: reader) } ?? []
        if let cut = layout?.cut, found.first.map({ !isPreview($0.frame, sensorLongEdge: sensorEdge) }) ?? true {
            throw .corruptHeader(path: info.path, container: info.container, detail: "\(cut) (truncated)")
        }
        guard let layout, let chosen = found.first, isPreview(chosen.frame, sensorLongEdge: sensorEdge) else {
            let what = found.first.map { "whose largest embedded JPEG is \($0.frame.width)×\($0.frame.height), a thumbnail (a preview is used from \(minimumLongEdge) px on its long edge\(sensorEdge.map { ", or half the sensor's \($0) px" } ?? ""))" }
                ?? "with no embedded JPEG preview that is read here\(hint(info.container))"
            let unread = layout?.unread.map { " (\($0))" } ?? ""
            throw .unsupported(path: info.path, container: info.container,
                               detail: "a \(name) camera raw \(what)\(unread): libvips 8.14 here has no camera raw decoder (libraw), so it can be neither shown nor converted")
        }
        var metadata: JPEGMetadata?
        if let window = reader.window(at: chosen.jpeg.offset, count: chosen.jpeg.length) { metadata = JPEGMetadata.read(window) }
        info.width = chosen.frame.width
        info.height = chosen.frame.height
        info.frames = 1
        info.codec = Codec("camera-raw")
        info.bands = chosen.frame.components.count
        info.bitDepth = 8
        info.hasAlpha = false
        info.pixelFormat = chosen.frame.components.count == 1 ? "b-w" : chosen.frame.components.count == 4 ? "cmyk" : "srgb"
        info.hasICCProfile = metadata?.hasICCProfile ?? false
        info.interlaced = chosen.frame.progressive
        info.orientation = layout.orientation ?? metadata?.orientation
        info.cameraRaw = CameraRawInfo(make: layout.make, model: layout.model, sensorWidth: layout.sensorWidth, sensorHeight: layout.sensorHeight,
                                       previewWidth: chosen.frame.width, previewHeight: chosen.frame.height, previewBytes: chosen.jpeg.length,
                                       previewOffset: chosen.jpeg.offset, rawOrientation: layout.orientation)
    }

    /// Where a maker keeps previews this reader does not reach, for the refusal.
    private static func hint(_ container: Container) -> String {
        switch container {
        case .orf: return " (Olympus keeps its previews in the maker note, which is not read here)"
        default: return ""
        }
    }

    /// The raw's preview as it is decoded: its bytes (the ``CameraRawInfo/previewBytes`` at
    /// ``CameraRawInfo/previewOffset``), with its EXIF replaced by the raw's orientation when the
    /// raw gives one; `nil` when they cannot be read as a JPEG (the file changed since the probe).
    static func jpeg(path: String, raw: CameraRawInfo) -> [UInt8]? {
        guard raw.previewBytes <= maximumBytes, let reader = try? FileReader(path: path),
              let window = reader.window(at: raw.previewOffset, count: raw.previewBytes), window.size == raw.previewBytes else { return nil }
        let bytes = window.read(at: 0, count: Int(raw.previewBytes))
        guard bytes.count == Int(raw.previewBytes), bytes.starts(with: [0xFF, 0xD8]), let metadata = JPEGMetadata.read(window) else { return nil }
        guard let orientation = raw.rawOrientation else { return bytes }
        return metadata.withOrientation(bytes, orientation)
    }

    /// A reader on the raw's preview alone (``FileReader/window(at:count:)``), for the JPEG checks.
    static func window(_ reader: borrowing FileReader, raw: CameraRawInfo) -> FileReader? {
        reader.window(at: raw.previewOffset, count: raw.previewBytes)
    }
}
