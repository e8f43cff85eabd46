/// The slow "is this file corrupt?" check: decodes every pixel or sample, which finds damage a
/// structural check cannot see (a broken bitstream inside well-formed boxes).
///
/// Images go through libvips, failing on decoder warnings (a camera raw: its embedded JPEG
/// preview); images libvips cannot open (12-bit
/// JPEG, BMP, JPEG XL, HEIF/AVIF sequences) and all audio/video go through libavformat and
/// libavcodec (see `DeepCheck+AV.swift`). Meant for files that already passed the probe, the
/// structural check and the safety caps; it still refuses to hand FFmpeg anything over
/// ``maximumPixels`` itself (libvips' decodes are bounded by the memory estimate instead).
enum DeepCheck {
    /// The largest picture (width × height of one frame) a decode check hands FFmpeg: 100
    /// megapixels. Anything larger is not checked through FFmpeg (``StructureVerdict/notChecked``).
    /// The same number caps libavcodec's own frame allocation (`max_pixels`), in case a bitstream
    /// declares more than its container.
    static let maximumPixels: Int64 = 100_000_000
    /// Decoded audio/video must last at least this share of a duration the container declares...
    static let minimumDurationShare = 0.9
    /// ...unless it is at most this many seconds short.
    static let durationSlack = 0.5

    /// Full decode: images through libvips (VipsImage.load(path:loaderOptions:sequential:failOnWarnings:) then decodeAll()),
    /// audio/video through libavformat+libavcodec (every packet of every audio/video stream that is not an attached picture).
    /// Returns .corrupt(reason) on any decode error, and also when the decoded media ends well before a duration the
    /// container *declares* (not when FFmpeg only estimated it from bitrate — MediaInfo.durationIsEstimate == true):
    /// e.g. decoded < 90% of declared and more than 0.5 s short.
    ///
    /// - Returns: ``StructureVerdict/intact`` when everything decoded; ``StructureVerdict/corrupt(reason:)``
    ///   on a decode error or a short decode; ``StructureVerdict/notChecked`` when no decoder exists
    ///   for the format or one of its streams, or the picture is over ``maximumPixels`` and only
    ///   FFmpeg would decode it, or its decode is over `maxDecodeBytes` (a valid large picture is
    ///   not corrupt: it is simply not decoded).
    ///
    /// - Parameter maxDecodeBytes: a picture whose decode at full size is estimated above this
    ///   (``MediaInfo/decodeMemory``; for video, the decoder's frames) is not decoded either.
    static func check(path: String, info: MediaInfo, maxDecodeBytes: Int64 = SafetyLimits().maxDecodeBytes) -> StructureVerdict {
        verify(path: path, info: info, maxDecodeBytes: maxDecodeBytes, videoBudget: nil).verdict
    }

    /// ``check(path:info:maxDecodeBytes:)`` with a bound on the video decoded: a video stream
    /// longer than `videoBudget` seconds is decoded GOP by GOP, GOPs spread evenly up to that many
    /// seconds (``GOPSampler``); its sound is decoded whole. `coverage` says what was decoded when
    /// GOPs were skipped (`nil` when everything was).
    /// - Parameter decoding: how FFmpeg's decoders run: ``decoding`` (default) or ``fastDecoding``;
    ///   one thread either way.
    static func verify(path: String, info: MediaInfo, maxDecodeBytes: Int64, videoBudget: Double?,
                       decoding: DecoderBudget = decoding) -> (verdict: StructureVerdict, coverage: String?) {
        // FFmpeg decodes whole frames: over ``maximumPixels`` it is not asked to. libvips' decode is
        // bounded by the memory estimate below (a non-interlaced PNG or baseline JPEG streams in a
        // row window at any size: a 12000×12000 PNG cut in half was handed back unchecked).
        let overFFmpegPixels = info.width.flatMap { w in info.height.map { h in Double(w) * Double(h) > Double(maximumPixels) } } ?? false
        let memory = info.kind == .image ? info.decodeMemory : DecodeMemoryEstimator.videoDecoder(info, threads: 1)
        if let memory, memory.bytes(loadedPixels: info.pixels ?? 0) > maxDecodeBytes {
            return (.notChecked, nil)
        }
        if info.kind == .image, let raw = info.cameraRaw {
            return (decodePreview(path: path, raw: raw), nil)
        }
        if info.kind == .image, !info.container.isReadOnlyByFFmpeg {
            guard let verdict = decodeImage(path: path, info: info) else {
                // libvips cannot read it. FFmpeg may decode around the damage; but where libvips'
                // loader reads every valid file of the format, the refusal is the verdict (issue 13:
                // "two SOF markers" passed --deep through FFmpeg's more forgiving JPEG decoder).
                if let refusal = libvipsRefusal(path: path, info: info) { return (.corrupt(reason: refusal), nil) }
                return overFFmpegPixels ? (.notChecked, nil) : decodeAudioVideo(path: path, info: info)
            }
            // libvips reads an APNG's first frame only: the others are decoded through FFmpeg.
            if case .intact = verdict, info.codec == .apng, (info.frames ?? 1) > 1 {
                return overFFmpegPixels ? (.notChecked, nil) : decodeAudioVideo(path: path, info: info, demuxer: "apng")
            }
            return (verdict, nil)
        }
        if overFFmpegPixels { return (.notChecked, nil) }
        return decodeAudioVideo(path: path, info: info, videoBudget: videoBudget, decoding: decoding)
    }

    /// Why libvips refuses a file of a format whose every valid file its loaders read: PNG, GIF and
    /// WebP (libspng/libpng, libnsgif, libwebp), and 8-bit DCT JPEG (libjpeg-turbo; a 12-bit or
    /// lossless JPEG is not read by this build, so FFmpeg decodes those). `nil` when the format is
    /// not one of them, or libvips does read the header after all.
    static func libvipsRefusal(path: String, info: MediaInfo) -> String? {
        guard let reader = try? FileReader(path: path), libvipsReadsEveryValidFile(of: info.container, reader) else { return nil }
        do {
            _ = try VipsImage.load(path: path, loaderOptions: "", sequential: true, failOnWarnings: false)
            return nil
        } catch {
            return "libvips, which reads every valid \(info.container.facts?.name ?? info.container.rawValue), refuses it: \(error.detail)"
        }
    }

    /// Whether libvips' loader reads every valid file of this format (so its refusal means damage,
    /// not a variant it lacks): PNG, GIF, WebP, and JPEG whose coding process libjpeg-turbo reads
    /// (``JPEGFrameHeader/decoder``: 8-bit DCT, not hierarchical).
    static func libvipsReadsEveryValidFile(of container: Container, _ reader: borrowing FileReader) -> Bool {
        switch container {
        case .png, .gif, .webp:
            return true
        case .jpeg:
            guard let frame = JPEGFrameHeader.read(reader) else { return false }
            return frame.decoder == .libvips
        default:
            return false
        }
    }

    /// Decodes a camera raw's embedded JPEG preview (what is shown of it: the sensor data is not
    /// decoded here) with libvips, warnings as errors.
    private static func decodePreview(path: String, raw: CameraRawInfo) -> StructureVerdict {
        guard let jpeg = CameraRawPreview.jpeg(path: path, raw: raw) else {
            return .corrupt(reason: "the embedded JPEG preview cannot be read")
        }
        do {
            try VipsImage.load(.bytes(jpeg), sequential: true, failOnWarnings: true).decodeAll()
        } catch {
            return .corrupt(reason: "the embedded JPEG preview does not decode: \(error.description)")
        }
        if let reason = JPEGDataCheck.reason(jpeg) { return .corrupt(reason: "the embedded JPEG preview: \(reason)") }
        return .intact
    }

    /// Decodes an image with libvips in constant memory (sequential access), all frames of an
    /// animated GIF or WebP. A header that only opens when warnings are tolerated is corrupt;
    /// `nil` when libvips cannot read the header at all (12-bit JPEG, AVIF sequences: FFmpeg decodes).
    private static func decodeImage(path: String, info: MediaInfo) -> StructureVerdict? {
        let allPages = (info.frames ?? 1) > 1 && [.gif, .webp].contains(info.container)
        let image: VipsImage
        do {
            image = try VipsImage.load(path: path, loaderOptions: allPages ? "n=-1" : "", sequential: true, failOnWarnings: true)
        } catch {
            guard (try? VipsImage.load(path: path, loaderOptions: allPages ? "n=-1" : "", sequential: true, failOnWarnings: false)) != nil else {
                return nil
            }
            return .corrupt(reason: "the image header reads only with warnings: \(error.description)")
        }
        do {
            try image.decodeAll()
        } catch {
            return .corrupt(reason: "the image does not decode: \(error.description)")
        }
        if info.container == .jpeg, let reason = JPEGDataCheck.reason(path: path) { return .corrupt(reason: reason) }
        return .intact
    }

}
