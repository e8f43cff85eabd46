/// The codec a transport stream's PMT declares for an elementary stream, where its `stream_type`
/// or descriptors say it plainly. FFmpeg 5.1's MPEG-TS reader knows only some of these: for a
/// stream type or descriptor it does not know it guesses the codec from the payload, and takes
/// MPEG-H 3D Audio, AC-4 or DTS-HD in a private stream (`0x06`) for MP3 or MP2 — whose decoder
/// then fails (`prepare`: "write header: Invalid argument"; `validate` advised "transcode MP3 →
/// AAC"). The PMT is what the stream is; the probe holds FFmpeg's reading against it
/// (``refusal(readAs:pid:)``).
///
/// Sources: ISO/IEC 13818-1 Table 2-34 (stream types; `0x2D`/`0x2E` MPEG-H 3D Audio, `0x33` VVC)
/// and §2.6.90 (the extension descriptor, tag extension `0x08` MPEG-H 3D Audio); ETSI TS 101 154
/// and EN 300 468 Annex D/G (DVB: AC-3 `0x6A`, E-AC-3 `0x7A`, DTS `0x7B` descriptors; extension
/// descriptor `0x7F` with tag extension `0x0E` DTS-HD, `0x15` AC-4, `0x21` DTS-UHD); ATSC A/52
/// (stream types `0x81` AC-3, `0x87` E-AC-3); the Blu-ray (`HDMV`-registered) stream types
/// (`0x80` LPCM ... `0x86` DTS-HD Master Audio, `0xA1`/`0xA2` secondary audio); registration
/// descriptors (`AC-3`, `EAC3`, `DTS1`–`DTS3`, `AC-4`, `mhm1`/`mha1`...).
struct DeclaredCodec: Sendable, Equatable {
    /// The codec as FFmpeg names it (or would, for those FFmpeg 5.1 lacks: `mpegh_3d_audio`, `ac4`).
    let codec: Codec
    /// The codec for people ("DTS-HD Master Audio").
    let name: String
    let kind: MediaKind
    /// What FFmpeg calls the stream when it reads it right (DTS-HD: `dts`).
    let readAs: Set<Codec>
    /// Whether FFmpeg 5.1 has a decoder for it.
    let decodable: Bool
    /// Where the PMT says so ("stream type 0x2D", "stream type 0x06 with registration 'AC-4'").
    let evidence: String

    /// What a PMT's elementary stream is, when its stream type or descriptors name one of the
    /// codecs above; `nil` for the rest (video FFmpeg reads by its stream type, data, subtitles,
    /// private streams without a telling descriptor).
    init?(_ stream: TransportStreamPrograms.ElementaryStream) {
        let type = stream.streamType
        let hdmv = stream.programRegistration == "HDMV"
        let said = "stream type \(Self.hex(type))"
        let registration = stream.registration
        let registered = registration.map { "\(said) with registration '\($0)'" } ?? said
        func with(_ descriptor: String) -> String { "\(said) with a DVB \(descriptor) descriptor" }
        let mpegH: Set<String> = ["mhm1", "mhm2", "mha1", "mha2"]
        let dts: Set<String> = ["DTS1", "DTS2", "DTS3"]
        switch true {
        case type == 0x2D || type == 0x2E:
            self.init("mpegh_3d_audio", type == 0x2E ? "MPEG-H 3D Audio (auxiliary stream)" : "MPEG-H 3D Audio", said, decodable: false)
        case registration.map(mpegH.contains) ?? false:
            self.init("mpegh_3d_audio", "MPEG-H 3D Audio", registered, decodable: false)
        case stream.mpegExtensions.contains(0x08):
            self.init("mpegh_3d_audio", "MPEG-H 3D Audio", "\(said) with an MPEG-H 3D Audio descriptor", decodable: false)
        case stream.dvbExtensions.contains(0x15) || registration == "AC-4":
            self.init("ac4", "AC-4", registration == "AC-4" ? registered : with("AC-4"), decodable: false)
        case stream.dvbExtensions.contains(0x21):
            self.init("dtsuhd", "DTS-UHD (DTS:X)", with("DTS-UHD"), decodable: false)
        case hdmv && type == 0x85:
            self.init("dts", "DTS-HD High Resolution Audio", "\(said) (Blu-ray)", readAs: ["dts"])
        case hdmv && type == 0x86:
            self.init("dts", "DTS-HD Master Audio", "\(said) (Blu-ray)", readAs: ["dts"])
        case hdmv && type == 0xA2:
            self.init("dts", "DTS Express", "\(said) (Blu-ray)", readAs: ["dts"])
        case stream.dvbExtensions.contains(0x0E):
            self.init("dts", "DTS-HD", with("DTS-HD"), readAs: ["dts"])
        case hdmv && type == 0x82, type == 0x8A, stream.has(0x7B), registration.map(dts.contains) ?? false:
            let evidence = registration.map(dts.contains) ?? false ? registered : stream.has(0x7B) ? with("DTS") : said
            self.init("dts", "DTS", evidence, readAs: ["dts"])
        case hdmv && (type == 0x84 || type == 0xA1), !hdmv && type == 0x87, stream.has(0x7A), registration == "EAC3":
            // FFmpeg's AC-3 decoder reads E-AC-3 frames too.
            self.init("eac3", "E-AC-3", stream.has(0x7A) ? with("E-AC-3") : registered, readAs: [.eac3, .ac3])
        case type == 0x81, stream.has(0x6A), registration == "AC-3":
            self.init("ac3", "AC-3", stream.has(0x6A) ? with("AC-3") : registered, readAs: [.ac3, .eac3])
        case hdmv && type == 0x83:
            // FFmpeg splits a Blu-ray TrueHD stream into TrueHD and its AC-3 core.
            self.init("truehd", "Dolby TrueHD", "\(said) (Blu-ray)", readAs: ["truehd", "mlp", .ac3])
        case type == 0x03 || type == 0x04:
            self.init(.mp2, "MPEG audio", said, readAs: [.mp1, .mp2, .mp3])
        case type == 0x0F:
            self.init(.aac, "AAC (ADTS)", said, readAs: [.aac])
        case type == 0x11:
            self.init("aac_latm", "AAC (LATM)", said, readAs: ["aac_latm", .aac])
        case type == 0x33:
            self.init("vvc", "VVC (H.266) video", said, kind: .video, decodable: false)
        default:
            return nil
        }
    }

    private init(_ codec: Codec, _ name: String, _ evidence: String, kind: MediaKind = .audio, readAs: Set<Codec> = [],
                 decodable: Bool = true) {
        (self.codec, self.name, self.evidence, self.kind, self.readAs, self.decodable) = (codec, name, evidence, kind, readAs, decodable)
    }

    /// Why the stream on `pid`, which FFmpeg's reader names `codec`, cannot be decoded here: the
    /// PMT declares a codec FFmpeg 5.1 has no decoder for (whatever FFmpeg takes it for), or one
    /// it decodes but reads as something else (``readAs``: DTS-HD taken for MP2 goes to the wrong
    /// decoder). `nil` when FFmpeg reads it as what it is. `media`: FFmpeg's reader made it a
    /// sound or picture stream at all (else it left it as data: nothing it knows matched the payload).
    func refusal(readAs codec: Codec, media: Bool = true, pid: Int) -> String? {
        let taken = codec == .unidentified || !media ? "which FFmpeg 5.1's MPEG-TS reader does not identify"
            : "which FFmpeg 5.1's MPEG-TS reader takes for \(codec)"
        let what = "\(name) (\(evidence), PID \(Self.hex(pid)))"
        if !decodable {
            return StructureVerdict.cannotDecodeReason(codec == self.codec && media ? what : "\(what), \(taken)")
        }
        guard !media || !readAs.contains(codec) else { return nil }
        return "\(what), \(taken): FFmpeg 5.1 decodes \(name) only when its reader identifies it, so it cannot be verified or converted here"
    }

    /// `0x2D`, `0x100`: stream types and PIDs as the standards write them.
    static func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count % 2 == 1 ? "0" + digits : digits)
    }
}
