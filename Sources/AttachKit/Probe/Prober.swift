/// Limits on how much libavformat reads while probing audio and video headers.
public struct ProbeLimits: Sendable, Equatable {
    /// Bytes read to identify streams (FFmpeg `probesize`). Default 5,000,000.
    public var probeBytes: Int
    /// Media seconds analysed for stream parameters (FFmpeg `analyzeduration`). Default 5.
    public var analyzeSeconds: Double

    /// Read only what the container header declares for ISO base media files (no packet is read
    /// or decoded: the pixel format and level come from the codec configuration when it has them). Used to re-check AttachKit's own MP4/M4A
    /// outputs, whose headers it just wrote. Default `false`.
    public var headerOnly: Bool

    /// Fill the pixel format, profile, level, chroma, bit depth, sample rate and channel layout
    /// from the codec configuration the header carries instead of decoding the first packets
    /// (``CodecConfiguration``): an MP4/MOV's `avcC`, `hvcC`, AAC-LC's `esds`; the same records as
    /// a Matroska/WebM track's `CodecPrivate`; a native FLAC's `STREAMINFO`; a raw ADTS AAC's
    /// first frame header (``ADTSHeaderProbe``: AAC-LC at 32 kHz or more, mono to 5.1). Files
    /// whose header does not settle them (other codecs, other containers) are decoded as before.
    /// Default `true`; `false` always decodes (the reference the header-only answers are tested
    /// against; an ADTS file's duration is still its frames' either way).
    public var readsCodecConfiguration: Bool

    /// 5,000,000 bytes: FFmpeg's own `probesize` default.
    public static let defaultProbeBytes = 5_000_000
    /// 5 s: FFmpeg's own `analyzeduration` default.
    public static let defaultAnalyzeSeconds = 5.0

    public init(probeBytes: Int = ProbeLimits.defaultProbeBytes, analyzeSeconds: Double = ProbeLimits.defaultAnalyzeSeconds, headerOnly: Bool = false,
                readsCodecConfiguration: Bool = true) {
        self.probeBytes = probeBytes
        self.analyzeSeconds = analyzeSeconds
        self.headerOnly = headerOnly
        self.readsCodecConfiguration = readsCodecConfiguration
    }

    var avInput: AVInputLimits {
        AVInputLimits(probeBytes: probeBytes, analyzeMicroseconds: analyzeMicroseconds)
    }

    /// ``analyzeSeconds`` in microseconds, clamped to 0...1 hour (a caller's NaN or 1e300 is no
    /// reason to trap; libavformat never analyses that long anyway).
    private var analyzeMicroseconds: Int { (analyzeSeconds * 1_000_000).clampedInteger(in: 0...3_600_000_000, rounding: .towardZero) }

    /// Limits for containers whose header already describes every stream (ISO base media's
    /// `moov`, Matroska's `Tracks`): libavformat only needs the first packets to fill in the pixel
    /// format, so reading 256 KB / 0.5 s instead of 5 MB / 5 s loses nothing and saves tens of
    /// milliseconds per file.
    var headerDescribed: AVInputLimits {
        AVInputLimits(probeBytes: min(probeBytes, 256 * 1024), analyzeMicroseconds: min(analyzeMicroseconds, 500_000))
    }
}

/// Identifies a file by its bytes and reads its header, never decoding pixels or samples.
///
/// Images are read with libvips' header loading (libavformat for what libvips cannot read: BMP,
/// 12-bit JPEG, HEIF and AVIF sequences, JPEG 2000, PNM, QOI, PSD, ICO...: ``FormatTable`` says
/// which; the file's own header for TGA and BMP headers FFmpeg refuses; a camera raw's embedded
/// JPEG preview for the raw: ``CameraRawPreview``); audio and video with libavformat, told which
/// demuxer to use from the sniffed bytes, with only the `file` protocol allowed. Safe to use from
/// many threads at once.
public struct Prober: Sendable {
    public var limits: ProbeLimits
    /// The caps held against what libavformat would build before it reads the header: an
    /// MP4/MOV's sample tables (``SafetyLimits/maxSamples``: libavformat allocates for every
    /// sample they declare). Default ``SafetyLimits/init()``; the verbs set their own.
    public var safety: SafetyLimits

    public init(limits: ProbeLimits = ProbeLimits(), safety: SafetyLimits = SafetyLimits()) {
        self.limits = limits
        self.safety = safety
    }

    /// Probes the file behind `handle`.
    /// - Throws: ``ProbeError``: `unreadable`, `empty`, `unrecognized-type` (not media),
    ///   `corrupt` (a known format whose header cannot be read), `over-cap` (sample tables over
    ///   ``SafetyLimits/maxSamples``: not handed to libavformat).
    public func probe(_ handle: borrowing AccessHandle) throws(ProbeError) -> MediaInfo {
        try probeWithSniff(path: handle.path, displayPath: handle.requestedPath).info
    }

    /// The probe result together with what the sniffer saw (validation needs both).
    func probeWithSniff(path: String, displayPath: String) throws(ProbeError) -> (info: MediaInfo, sniff: FormatSniffer.Result) {
        let reader: FileReader
        do {
            reader = try FileReader(path: path)
        } catch {
            if error.error == .noEntry { throw .access(.notFound(path: displayPath)) }
            throw .unreadable(path: displayPath, reason: error.message)
        }
        let sniff = FormatSniffer.sniff(reader)
        var info = MediaInfo(path: displayPath, bytes: reader.size, kind: .unknown, container: sniff.container)
        switch sniff.family {
        case .image:
            info.kind = .image
            try readImage(path: path, reader: reader, into: &info)
            info.decodeMemory = DecodeMemoryEstimator.image(info, reader: reader)
        case .video, .audio:
            if sniff.container == .aacADTS {
                try readADTS(path: path, reader: reader, from: sniff.audioOffset, into: &info)
                break
            }
            try readAudioVideo(path: path, reader: reader, demuxer: Demuxers.name(for: sniff.container), into: &info)
            countMPEGAudioFrames(reader, from: sniff.audioOffset, into: &info)
            countQCPPackets(reader, into: &info)
            leaveOutOpusPreSkip(reader, into: &info)
        case .unknown:
            if sniff.container == .empty { throw .empty(path: displayPath) }
            try readUnsniffed(path: path, reader: reader, sniff: sniff, into: &info)
        }
        return (info, sniff)
    }

    private func readImage(path: String, reader: borrowing FileReader, into info: inout MediaInfo) throws(ProbeError) {
        // A camera raw is its embedded JPEG preview: never handed to libvips' TIFF loader (which
        // reads its IFD0 thumbnail, or refuses it).
        if info.container.isCameraRaw {
            try CameraRawPreview.describe(reader, into: &info)
            return
        }
        if info.container == .jpeg, let frame = JPEGFrameHeader.read(reader) {
            // A coding process no decoder here reads is refused by name, not judged by a failed load.
            guard frame.decoder != nil else {
                throw .unsupported(path: info.path, container: info.container,
                                   detail: "a \(frame.process) JPEG: neither libjpeg-turbo 2.1 (libvips) nor FFmpeg 5.1 decodes it, so it cannot be verified or converted here")
            }
            info.profile = Int(frame.marker)
        }
        var vipsFailure: VipsError?
        if !info.container.isReadOnlyByFFmpeg {
            do {
                try ImageHeaderProbe.read(path: path, into: &info)
            } catch {
                vipsFailure = error
            }
        }
        if vipsFailure != nil || info.width == nil {
            // A HEIF item type libheif lacks is not damage (issue 18).
            if info.container.isHEIF, let reason = HEIFItems.undecodableReason(reader) {
                throw .unsupported(path: info.path, container: info.container, detail: reason)
            }
            // Where libvips reads every valid file of the format, its refusal is the verdict: FFmpeg's
            // more forgiving decoders would show a JPEG with two frame headers at either size.
            if let vipsFailure, DeepCheck.libvipsReadsEveryValidFile(of: info.container, reader) {
                throw .corruptHeader(path: info.path, container: info.container, detail: "libvips refuses it: \(vipsFailure.detail)")
            }
            // libvips cannot read it (blocked loader, 12-bit JPEG, image sequence): try libavformat.
            // JPEG XL's size is in its first bytes; FFmpeg 5.1 would decode the whole picture for it.
            if info.container == .jxl, let header = JXLHeader.read(reader) {
                (info.width, info.height, info.frames, info.codec) = (header.width, header.height, 1, .jxl)
                return
            }
            guard let demuxer = Demuxers.name(for: info.container) else {
                if PictureHeaderFallback.read(reader, into: &info) { return }
                throw .corruptHeader(path: info.path, container: info.container, detail: vipsFailure?.message ?? "unreadable")
            }
            try FFmpegLibrary.requireForProbe(path: info.path)
            try screenIndex(reader, demuxer: demuxer, info: &info)
            do {
                try AVHeaderProbe.readImage(path: path, demuxer: demuxer, limits: limits.avInput, into: &info)
            } catch {
                if PictureHeaderFallback.read(reader, into: &info) { return }
                // A valid JPEG 2000 codestream FFmpeg's decoder does not support is not damage.
                if info.container == .jpeg2000, let header = JPEG2000Header.read(reader) {
                    throw .unsupported(path: info.path, container: info.container,
                                       detail: StructureVerdict.cannotDecodeReason("a JPEG 2000 picture (\(header.summary)) whose header FFmpeg 5.1's decoder refuses (\(error.description))"))
                }
                let detail = vipsFailure?.detail ?? error.description
                throw .corruptHeader(path: info.path, container: info.container, detail: detail)
            }
        }
        if info.container == .gif, let screen = GIFStructure.screen(reader) {
            // Pixels and memory are judged by the canvas the device decodes, not the part of it
            // libnsgif composes (a 65535² screen with a 100×100 frame read as 100×100).
            info.width = max(info.width ?? 0, screen.width)
            info.height = max(info.height ?? 0, screen.height)
        }
        if info.container == .gif, (info.frames ?? 1) >= 4096, let frames = GIFStructure.frameCount(reader) {
            // libnsgif stops counting at 4096 frames; the block walk counts them all (a frame-count
            // bomb must be seen whole to be refused).
            info.frames = frames
        }
        if info.container == .png {
            let chunks = PNGChunks.walk(reader, verifyCRC: false)
            if let frames = chunks.animationFrames, frames > 1 {
                info.codec = .apng
                info.frames = frames
                info.duration = chunks.animationDuration
            }
        }
    }

    /// An MP3 (or MP2) whose duration libavformat estimated (no Xing/VBRI header: from the first
    /// frame's bitrate, which a variable-bitrate file does not keep) gets the duration its frames
    /// add up to, counted header by header (a read per 64 KiB); where the two differ, the estimate
    /// is kept as ``MediaInfo/estimatedDuration`` (players estimate so too).
    private func countMPEGAudioFrames(_ reader: borrowing FileReader, from start: Int64, into info: inout MediaInfo) {
        guard [.mp3, .mp2].contains(info.container), info.durationIsEstimate == true,
              let seconds = MPEGAudioStructure.duration(reader, from: start) else { return }
        let counted = (seconds * 1000).rounded() / 1000
        if let estimated = info.duration, abs(estimated - counted) > max(0.1, counted * 0.02) { info.estimatedDuration = estimated }
        info.duration = counted
        info.durationIsEstimate = false
    }

    /// Raw AAC (ADTS) whose frames walk cleanly (``ADTSHeaderProbe``): read from its first frame
    /// header when that settles the stream (``ProbeLimits/readsCodecConfiguration``), else by
    /// libavformat; either way with the duration and bitrates its frames give. Any other ADTS file
    /// is read by libavformat alone (an estimated duration). FFmpeg is required either way, as for
    /// every sound (nothing here decodes or converts it without): its absence is `unreadable`.
    /// - Throws: `corrupt` when no frame holds sound, or the first frames decode to no sample
    ///   rate or channel count (never a rate of 0); `unsupported` for a file of one frame of sound
    ///   or frames of several raw data blocks.
    private func readADTS(path: String, reader: borrowing FileReader, from start: Int64, into info: inout MediaInfo) throws(ProbeError) {
        try FFmpegLibrary.requireForProbe(path: info.path)
        let walked = ADTSHeaderProbe.count(reader, from: start)
        if let walked, let silence = ADTSHeaderProbe.silence(walked) {
            throw .corruptHeader(path: info.path, container: info.container, detail: silence)
        }
        if let walked, let blocks = ADTSHeaderProbe.severalBlocks(walked) {
            throw .unsupported(path: info.path, container: info.container, detail: blocks)
        }
        if let walked, walked.frames - walked.silentFrames == 1 {
            // libavformat gives a lone frame's packet no timestamp (ffprobe cannot open the file),
            // and a copy leaves frames that decode to nothing out (``StreamCopyStage``), so one
            // frame of sound among them is a lone packet too: every verb says so, rather than
            // validate passing what prepare cannot copy.
            let silent = walked.silentFrames > 0 ? " and \(walked.silentFrames) that decode to nothing" : ""
            throw .unsupported(path: info.path, container: info.container,
                               detail: "a single ADTS frame of sound (\(walked.samples) samples)\(silent): FFmpeg 5.1's ADTS reader gives a lone packet no timestamp, so it cannot be remuxed here")
        }
        if let walked, limits.readsCodecConfiguration, ADTSHeaderProbe.describe(walked, into: &info) { return }
        try readAudioVideo(path: path, reader: reader, demuxer: Demuxers.name(for: .aacADTS), into: &info)
        // A rate or channel count of 0 is no fact: the first frames did not decode (a channel
        // configuration the payload does not match, a reserved rate index, frames without audio).
        guard let rate = info.sampleRate, rate > 0, let channels = info.channels, channels > 0 else {
            let bytes = reader.read(at: start, count: 7)
            var header = ADTSFrame(bytes, at: 0)
                .map { " (its first header: AAC \($0.profileName), \($0.sampleRate) Hz, channel configuration \($0.channelConfiguration))" } ?? ""
            if header.isEmpty, bytes.count == 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0, bytes[2] >> 2 & 0x0F >= 13 {
                header = " (its first header's sampling-frequency index is \(bytes[2] >> 2 & 0x0F), a reserved value)"
            }
            throw .corruptHeader(path: info.path, container: info.container,
                                 detail: "the first frames do not decode: FFmpeg 5.1's AAC decoder finds no sample rate or channel count in them\(header)")
        }
        if let walked { ADTSHeaderProbe.correct(walked, into: &info) }
    }

    /// A QCP whose duration libavformat estimated from the nominal bit rate gets the duration its
    /// packets last (``QCPHeader``).
    private func countQCPPackets(_ reader: borrowing FileReader, into info: inout MediaInfo) {
        guard info.container == .qcp, info.durationIsEstimate == true, let seconds = QCPHeader.read(reader)?.duration else { return }
        info.duration = seconds
        info.durationIsEstimate = false
    }

    /// An Ogg Opus file's declared duration without its pre-skip: libavformat counts the samples a
    /// decoder discards at the start (up to 1.37 s: 65,535 at 48 kHz), so a large one read as
    /// "data missing" against the decode (``OggOpusHeader``).
    private func leaveOutOpusPreSkip(_ reader: borrowing FileReader, into info: inout MediaInfo) {
        guard info.container == .ogg, info.kind == .audio, info.codec == .opus,
              info.durationIsEstimate != true, let duration = info.duration, let skip = OggOpusHeader.preSkipSeconds(reader),
              duration > skip else { return }
        info.duration = duration - skip
    }

    private func readAudioVideo(path: String, reader: borrowing FileReader, demuxer: String?, into info: inout MediaInfo) throws(ProbeError) {
        guard let demuxer else {
            throw .unrecognized(path: info.path, detail: "\(info.container) has no reader")
        }
        try FFmpegLibrary.requireForProbe(path: info.path)
        let fragmentDuration = try screenIndex(reader, demuxer: demuxer, info: &info)
        do {
            let described = info.container.isISOBaseMedia || [.matroska, .webm].contains(info.container)
            try AVHeaderProbe.readAudioVideo(path: path, demuxer: demuxer, limits: described ? limits.headerDescribed : limits.avInput,
                                             streamInfo: !(limits.headerOnly && info.container.isISOBaseMedia),
                                             configuration: limits.readsCodecConfiguration && readsConfiguration(of: info.container),
                                             declared: declaredCodecs(reader, demuxer: demuxer), into: &info)
        } catch {
            // Encrypted media libavformat cannot read the header of is DRM, not damage.
            if info.container.isISOBaseMedia, let reason = ISOBMFFStructure.encryptionReason(reader) {
                throw .encrypted(path: info.path, container: info.container, detail: reason)
            }
            // Fragments without their movie header are a stream's part, not a damaged file.
            if info.container.isISOBaseMedia, let reason = ISOBMFFFragments.mediaSegmentReason(reader) {
                throw .unsupported(path: info.path, container: info.container, detail: reason)
            }
            throw .corruptHeader(path: info.path, container: info.container, detail: error.message)
        }
        // Common Encryption that libavformat reads past (a clear `moov` over `encv`/`enca` sample
        // entries, or `pssh`/`senc` boxes) is as encrypted as a header it cannot read: every verb says so.
        if info.container.isISOBaseMedia, info.kind != .image, let reason = ISOBMFFStructure.encryptionReason(reader, scanning: false) {
            throw .encrypted(path: info.path, container: info.container, detail: reason)
        }
        if let fragmentDuration {
            info.duration = fragmentDuration
            info.durationIsEstimate = false
        }
    }

    /// Whether the container's header may settle a probe without decoding
    /// (``AVHeaderProbe/readConfiguredHeader(path:demuxer:limits:into:)``): MP4/MOV, Matroska and
    /// WebM, native FLAC.
    private func readsConfiguration(of container: Container) -> Bool {
        container.isISOBaseMedia || [.matroska, .webm, .flac].contains(container)
    }

    /// The codecs a transport stream's PMT declares (``DeclaredCodec``), by PID: FFmpeg's MPEG-TS
    /// reader guesses the codec of a stream type it does not know from the payload, and the
    /// table is held against its guess. Empty for other demuxers.
    private func declaredCodecs(_ reader: borrowing FileReader, demuxer: String) -> [Int: DeclaredCodec] {
        guard demuxer == Demuxers.name(for: .mpegTS), let programs = TransportStreamPrograms.read(reader) else { return [:] }
        var declared: [Int: DeclaredCodec] = [:]
        for stream in programs.streams {
            if let codec = DeclaredCodec(stream) { declared[stream.pid] = codec }
        }
        return declared
    }

    /// What libavformat would build reading the header, held against ``safety`` first: for the
    /// `mov` demuxer, the samples the sample tables declare (``ISOBMFFSampleTables``), whatever
    /// bytes stand behind them (their consistency with the file is the structure check's to
    /// judge); for `matroska`, the index entries the `Cues` declare and their order
    /// (``MatroskaCues``: out of order, libavformat sorts them in quadratic time); for `avi`, the
    /// `idx1` entries (``AVIIndex``). MPEG-TS and the other demuxers build no index from the header.
    /// - Throws: ``ProbeError/overCap(path:violation:)``, ``ProbeError/corruptHeader(path:container:detail:)``.
    /// The same walk of an MP4/MOV's tables records the kinds of media left with no enabled track
    /// (``MediaInfo/disabledMedia``), and returns the duration its fragments span when its header
    /// declares the unknown duration (a placeholder libavformat takes as it is: 143,166 s was
    /// "trim to 30 s" and too long to decode).
    @discardableResult
    private func screenIndex(_ reader: borrowing FileReader, demuxer: String, info: inout MediaInfo) throws(ProbeError) -> Double? {
        if demuxer == Demuxers.name(for: .mp4) {
            let tables = ISOBMFFSampleTables.read(reader)
            if let violation = tables.violation(of: safety) { throw .overCap(path: info.path, violation: violation) }
            let disabled = tables.disabledMedia.map { $0 == "vide" ? "video" : "audio" }
            info.disabledMedia = disabled.isEmpty ? nil : disabled
            if tables.movieDurationUnknown, let spanned = tables.fragmentDuration, spanned > 0 { return spanned }
        }
        if demuxer == Demuxers.name(for: .avi), let violation = AVIIndex.violation(reader, of: safety) {
            throw .overCap(path: info.path, violation: violation)
        }
        guard demuxer == Demuxers.name(for: .matroska) else { return nil }
        let cues = MatroskaCues.read(reader)
        if let violation = cues.violation(of: safety) { throw .overCap(path: info.path, violation: violation) }
        if let disorder = cues.disorder { throw .corruptHeader(path: info.path, container: info.container, detail: disorder) }
        return nil
    }

    /// Bytes the sniffer does not know: libavformat's own detection (no file name, score at least
    /// 25) may still name a media format; text it might take for subtitles, and named non-media
    /// (PDF, SVG, executables...), is refused without asking.
    private func readUnsniffed(path: String, reader: borrowing FileReader, sniff: FormatSniffer.Result,
                               into info: inout MediaInfo) throws(ProbeError) {
        guard [.unknown, .text, .json].contains(sniff.container) else {
            throw .unrecognized(path: info.path, detail: describe(sniff.container))
        }
        let head = reader.read(at: sniff.audioOffset, count: 1 << 15)
        guard let guess = AVFormatGuess.guess(head: head), guess.score >= 25,
              let container = Demuxers.container(forDemuxer: guess.demuxer) else {
            throw .unrecognized(path: info.path, detail: describe(sniff.container))
        }
        info.container = container
        if container.facts?.kind == .image {
            info.kind = .image
            try readImage(path: path, reader: reader, into: &info)
            info.decodeMemory = DecodeMemoryEstimator.image(info, reader: reader)
        } else if container == .aacADTS {
            // ADTS the sniffer did not take for it (a reserved rate index): read as every ADTS is.
            try readADTS(path: path, reader: reader, from: sniff.audioOffset, into: &info)
        } else {
            try readAudioVideo(path: path, reader: reader, demuxer: guess.demuxer, into: &info)
        }
    }

    /// What the bytes are, for an `unrecognized-type` message.
    private func describe(_ container: Container) -> String {
        switch container {
        case .unknown: return "no known signature in the first bytes"
        case .ebml: return "EBML file of an unknown document type"
        default: return "the bytes are \(container.facts?.name ?? container.rawValue)"
        }
    }
}
