/// Names a stream a clip leaves out, for the notes (`dropped …`): an attachment carries only the
/// picture and sound iOS plays, so timecode (`tmcd`), timed metadata (`mebx`, an iPhone's
/// `meta` tracks), chapter text tracks, subtitles, GoPro telemetry (`gpmd`), other data and
/// attachments (a Matroska font) are dropped, never muxed: no stream of another kind reaches the
/// muxer (a Dolby Vision MOV with three `mebx` tracks must not fail).
enum DroppedStream {
    /// What `stream` is, by its kind and container tag (`tag`: the MP4/MOV sample entry FourCC,
    /// `nil` when none), with its index: "the timecode track 2 (tmcd)", "timed metadata track 3
    /// (mebx)", "subtitles 4 (mov_text)".
    static func name(_ stream: AVStreamInfo, tag: String?) -> String {
        name(kind: stream.kind, index: stream.index, codec: stream.codec, tag: tag, attachedPicture: stream.isAttachedPicture)
    }

    /// ``name(_:tag:)`` from the stream's facts.
    static func name(kind: AVStreamInfo.Kind, index: Int, codec: Codec, tag: String?, attachedPicture: Bool = false) -> String {
        let fourCC = tag.map { String($0.filter { $0 != " " && $0 != "\0" }) }.flatMap { $0.isEmpty ? nil : $0 }
        switch kind {
        case .video: return attachedPicture ? "cover art" : "video stream \(index) (\(codec))"
        case .audio: return "audio stream \(index) (\(codec))"
        case .subtitle: return "subtitles \(index) (\(codec))"
        case .attachment: return "attachment \(index) (\(codec))"
        case .data, .other:
            switch fourCC {
            case "tmcd": return "the timecode track \(index) (tmcd)"
            case "mebx", "meta": return "timed metadata track \(index) (\(fourCC!))"
            case "text", "tx3g", "c608", "c708": return "the text track \(index) (\(fourCC!): chapters or captions)"
            case "gpmd": return "telemetry track \(index) (gpmd)"
            // The codec FFmpeg names (`scte_35`) says more than a registration tag (`CUEI`).
            case let other? where codec == .unidentified: return "data stream \(index) (\(other))"
            default: return codec == .unidentified ? "data stream \(index)" : "data stream \(index) (\(codec))"
            }
        }
    }
}
