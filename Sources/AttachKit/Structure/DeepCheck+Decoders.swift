extension DeepCheck {
    /// Whether the decoders here can decode what the file shows, decided before any packet is
    /// read: a decoder is found and opened (never fed) for each audio/video stream of the file's
    /// own kind (video streams of a movie, audio streams of a sound; attached pictures aside).
    ///
    /// A decoder AttachKit lacks is not corruption: when no stream of the file's kind can be
    /// decoded (no decoder: VVC, IAMF; or one that says "not implemented": xHE-AAC, an Opus
    /// channel mapping FFmpeg 5.1 lacks) the file is ``StructureVerdict/undecodable(reason:)``
    /// (`unsupported` from every verb: it can be neither verified nor converted). So is a file whose
    /// every such stream is one of ``MediaInfo/undecodableStreams`` (a transport stream's MPEG-H
    /// 3D Audio), whatever decoder FFmpeg would open for what it takes it for. A movie whose
    /// picture decodes but whose sound does not is prepared without that sound, as before.
    ///
    /// - Returns: ``StructureVerdict/intact`` when a stream of the file's kind opens a decoder;
    ///   ``StructureVerdict/notChecked`` for images, when FFmpeg cannot be loaded, the container has
    ///   no demuxer, or the header lists no such stream (what the other checks judge).
    static func decodersOpen(path: String, info: MediaInfo) -> StructureVerdict {
        guard info.kind == .audio || info.kind == .video, let demuxer = Demuxers.name(for: info.container) else { return .notChecked }
        let wanted: AVStreamInfo.Kind = info.kind == .video ? .video : .audio
        // Every stream of the kind misread (FFmpeg's reader may not even call it audio yet).
        if let reasons = info.undecodableReasons(of: info.kind) { return .undecodable(reason: reasons.joined(separator: "; ")) }
        let input: AVInput
        do {
            input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: false)
        } catch {
            return .notChecked
        }
        let streams = input.streams.filter { $0.kind == wanted && !$0.isAttachedPicture }
        guard !streams.isEmpty else { return .notChecked }
        // Streams the probe found FFmpeg cannot decode as it reads them are never handed to a decoder.
        let declared = streams.compactMap { stream in info.undecodableStreams?.first { $0.id == stream.identifier }?.reason }
        var refusals: [String] = []
        for stream in streams where !info.isUndecodable(streamID: stream.identifier) {
            do {
                _ = try AVDecoder(input: input, streamIndex: stream.index, options: decoding.decoderOptions)
                return .intact
            } catch where error.operation == .findDecoder || error.isNotImplemented {
                let what = wanted == .video ? "video" : "audio"
                if stream.codec == .unidentified {
                    let tag = input.codecTag(of: stream.index).map { " (FourCC '\($0)')" } ?? ""
                    refusals.append("the \(what) of stream \(stream.index) is in a codec FFmpeg does not identify\(tag)")
                } else {
                    refusals.append("the \(stream.codec) \(what) of stream \(stream.index) (FFmpeg: \(error.message))")
                }
            } catch {
                return .intact  // Refused for another reason: the decode check judges the data.
            }
        }
        let undecoded = refusals.isEmpty ? [] : [StructureVerdict.cannotDecodeReason(refusals.joined(separator: "; "))]
        return .undecodable(reason: (declared + undecoded).joined(separator: "; "))
    }
}
