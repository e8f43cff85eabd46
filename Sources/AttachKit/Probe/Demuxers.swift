/// The libavformat demuxer that reads each container, and the container each demuxer reads.
enum Demuxers {
    /// The demuxer for a container AttachKit sniffed, `nil` for containers libavformat does not read.
    static func name(for container: Container) -> String? {
        if container.isISOBaseMedia { return "mov" }
        switch container {
        case .avi: return "avi"
        case .mpegPS: return "mpeg"
        case .mpegTS: return "mpegts"
        case .mpegVideo: return "mpegvideo"
        case .webm, .matroska, .ebml: return "matroska"
        case .wav, .rf64: return "wav"
        case .aiff, .aifc: return "aiff"
        case .flac: return "flac"
        case .ogg: return "ogg"
        case .mp3: return "mp3"
        case .aacADTS: return "aac"
        case .ape: return "ape"
        case .amr: return "amr"
        case .jpeg: return "jpeg_pipe"
        case .png: return "png_pipe"
        case .gif: return "gif"
        case .webp: return "webp_pipe"
        case .tiff: return "tiff_pipe"
        case .bmp: return "bmp_pipe"
        case .jxl: return "jpegxl_pipe"
        default: return nil
        }
    }

    /// The container for a demuxer libavformat's own detection chose; `nil` for demuxers of formats
    /// that are not attachment media (subtitles, playlists, raw streams...), which are refused.
    static func container(forDemuxer demuxer: String) -> Container? {
        switch demuxer {
        case "mp3": return .mp3
        case "aac": return .aacADTS
        case "flac": return .flac
        case "wav": return .wav
        case "aiff": return .aiff
        case "ogg": return .ogg
        case "matroska,webm": return .matroska
        case "mov,mp4,m4a,3gp,3g2,mj2": return .mp4
        case "avi": return .avi
        case "mpeg": return .mpegPS
        case "mpegts": return .mpegTS
        case "mpegvideo": return .mpegVideo
        case "ape": return .ape
        case "amr": return .amr
        default: return nil
        }
    }
}
