/// Poster frames of movies and cover art of sound files, as JPEG.
///
/// Movies: the frame on screen at ``ThumbnailRequest/time`` (default 1 s, or the middle of clips
/// shorter than 2 s), found by a keyframe seek backward and decoding forward, converted to RGB,
/// turned upright per the track's rotation, cropped to ``ThumbnailRequest/clip`` and scaled to
/// ``ThumbnailRequest/size`` (long edge, never upscaled). The real time of the frame shown is
/// reported; an HDR picture (PQ, HLG) is tone-mapped to SDR BT.709 (``ToneMapper``). Sound files: their attached picture (cover art), same crop and scale; without one,
/// ``PrepareError/unsupported(reason:)``.
struct VideoThumbnailRenderer: ThumbnailRendering {
    func render(path: String, info: MediaInfo, request: ThumbnailRequest, limits: SafetyLimits,
                deadline: Deadline) throws(PrepareError) -> RenderedThumbnail {
        var decoding = DecoderBudget(threads: nil, maxPixels: limits.maxWholeFramePixels)
        decoding.frameBytes = DecodeMemoryEstimator.frameBytes(of: info)
        guard let demuxer = Demuxers.name(for: info.container) else {
            throw .unsupported(reason: "\(info.container) is not a container FFmpeg reads")
        }
        let located = try locate(path: path, demuxer: demuxer, decoding: decoding)
        let frame = try ClipErrors.attempt("poster frame") { () throws(FFmpegError) in try AVFrameBuffer() }
        var shown: Double?
        switch located.kind {
        case .picture(let stream):
            if let violation = limits.videoDecodeViolation(of: info, threads: DecodeMemoryEstimator.threads(decoding.threads)) {
                throw .overCap(violation)
            }
            let duration = info.duration ?? 0
            let time = request.time ?? (duration > 0 && duration < 2 ? duration / 2 : 1)
            guard time.isFinite, time >= 0 else { throw .unsupported(reason: "thumbnail time \(time) s is not a time in the clip") }
            shown = try PosterFrameDecoder(path: path, demuxer: demuxer, stream: stream, decoding: decoding, deadline: deadline)
                .decode(at: time, into: frame)
        case .cover(let stream):
            try decodeCover(path: path, demuxer: demuxer, stream: stream, decoding: .singleThread(maxPixels: limits.maxWholeFramePixels), into: frame)
        }
        try deadline.check("rendering the thumbnail")
        let picture = try PosterPicture.image(of: frame, sampleAspect: located.sampleAspect, rotation: located.rotation,
                                              clip: request.clip, longEdge: request.size, hdr: located.hdr)
        let jpeg: [UInt8]
        do {
            jpeg = try picture.jpegData(quality: request.quality)
        } catch {
            throw .processing(step: "encoding the thumbnail", reason: "\(error)")
        }
        return RenderedThumbnail(jpeg: jpeg, width: picture.width, height: picture.height, frame: nil,
                                 time: shown.map { ($0 * 1000).rounded() / 1000 })
    }

    private struct Located {
        enum Kind { case picture(Int), cover(Int) }
        var kind: Kind
        var sampleAspect: Double
        var rotation: Int
        /// The picture stream's dynamic range (cover art is SDR).
        var hdr: HDRInfo?
    }

    /// The movie's first picture stream, else the first cover art (``CoverArtStage/isCover(_:)``).
    /// - Throws: `unsupported` for a sound without a cover, or whose cover does not decode
    ///   (``CoverArtStage/failure(of:in:decoding:)``, as `prepare` drops it: the sound is no
    ///   more corrupt for it); `corrupt` when libavformat cannot read the input.
    private func locate(path: String, demuxer: String, decoding: DecoderBudget) throws(PrepareError) -> Located {
        var brokenCover: String?
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            let streams = input.streams
            if let video = streams.first(where: { $0.kind == .video && !$0.isAttachedPicture }) {
                let sar = input.sampleAspectRatio(of: video.index)
                return Located(kind: .picture(video.index), sampleAspect: sar.value, rotation: video.rotation,
                               hdr: input.hdr(of: video.index))
            }
            if let cover = streams.first(where: CoverArtStage.isCover) {
                brokenCover = CoverArtStage.failure(of: cover.index, in: input, decoding: decoding)
                if brokenCover == nil { return Located(kind: .cover(cover.index), sampleAspect: 1, rotation: 0, hdr: nil) }
            }
        } catch {
            throw .corrupt(reason: "libavformat cannot read the input: \(error.message)")
        }
        if let brokenCover { throw .unsupported(reason: "the file has no picture: its cover art does not decode (\(brokenCover))") }
        throw .unsupported(reason: "the file has no picture (sound without cover art)")
    }

    /// Decodes the attached picture of stream `stream` into `frame`.
    private func decodeCover(path: String, demuxer: String, stream: Int, decoding: DecoderBudget, into frame: borrowing AVFrameBuffer) throws(PrepareError) {
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            let decoder = try AVDecoder(input: input, streamIndex: stream, options: decoding.decoderOptions)
            let packet = try AVPacketBuffer()
            try input.attachedPicture(of: stream, into: packet)
            _ = try decoder.send(packet)
            _ = try decoder.sendEndOfStream()
            while true {
                switch try decoder.receive(into: frame) {
                case .frame: return
                case .needsInput, .endOfStream: throw FFmpegError(operation: .decode, message: "the cover art decodes to no picture")
                }
            }
        } catch {
            throw .corrupt(reason: "the cover art does not decode: \(error)")
        }
    }
}
