import Foundation
import Testing
@testable import AttachKit

/// Issue 18 / 13.3: every format FFmpeg or libvips reads is identified with its real kind and
/// container, then converted or refused with a precise reason; MP3s with chained tags or junk in
/// front are found; non-media is named. Fixtures: TestMedia/formats (generate.sh, "issue 18").
@Suite("Format identification beyond the iOS set")
struct FormatIdentificationTests {
    static let folder = TestEnvironment.testMedia.appendingPathComponent("formats")
    static func path(_ file: String) -> String { folder.appendingPathComponent(file).path }

    /// Media fixtures: file, kind, container.
    static let media: [(String, MediaKind, Container)] = [
        ("caf_pcm_s16be.caf", .audio, .caf), ("caf_alac.caf", .audio, .caf), ("caf_aac.caf", .audio, .caf),
        ("ac3_stereo.ac3", .audio, .ac3),
        ("eac3_stereo.eac3", .audio, .eac3), ("dts_stereo.dts", .audio, .dts), ("mp2_layer2.mp2", .audio, .mp2),
        ("wma_wmav2.wma", .audio, .asf), ("wavpack.wv", .audio, .wavPack), ("tta.tta", .audio, .tta),
        ("dsd_stereo.dsf", .audio, .dsf), ("dsd_stereo.dff", .audio, .dff),
        ("au_mulaw.au", .audio, .au), ("wave64_s16le.w64", .audio, .wave64), ("voc_u8.voc", .audio, .voc),
        ("mp3_chained_id3.mp3", .audio, .mp3), ("mp3_junk_before_frames.mp3", .audio, .mp3), ("mp3_id3_then_junk.mp3", .audio, .mp3),
        ("flv_h264_aac.flv", .video, .flv), ("asf_wmv2_wmav2.wmv", .video, .asf), ("rm_rv10_ra144.rm", .video, .realMedia),
        ("mxf_mpeg2.mxf", .video, .mxf), ("ivf_vp9.ivf", .video, .ivf), ("annexb_h264.h264", .video, .h264),
        ("annexb_hevc.hevc", .video, .hevc),
        ("pnm_rgb.ppm", .image, .pnm), ("pnm_grey.pgm", .image, .pnm), ("pam_rgba.pam", .image, .pnm), ("tga_rgb.tga", .image, .tga),
        ("qoi_rgb.qoi", .image, .qoi), ("ico_png.ico", .image, .ico), ("cur_png.cur", .image, .cur), ("psd_rgb.psd", .image, .psd),
        ("j2k_codestream.j2k", .image, .jpeg2000), ("jp2_boxed.jp2", .image, .jpeg2000), ("bigtiff_rgb.tif", .image, .tiff),
        ("bmp_os2v1_12.bmp", .image, .bmp), ("bmp_os2v2_64.bmp", .image, .bmp), ("bmp_v2_52.bmp", .image, .bmp),
        ("bmp_v3_56.bmp", .image, .bmp), ("bmp_v4_108.bmp", .image, .bmp), ("bmp_v5_124.bmp", .image, .bmp),
        ("pcx_rgb.pcx", .image, .pcx), ("sgi_rgb.sgi", .image, .sgi), ("sunrast_rgb.ras", .image, .sunRaster),
        ("xwd_rgb.xwd", .image, .xwd), ("dpx_rgb.dpx", .image, .dpx), ("mod_protracker.mod", .audio, .mod),
        ("s3m_screamtracker.s3m", .audio, .s3m), ("xm_fasttracker.xm", .audio, .xm), ("it_impulsetracker.it", .audio, .impulseTracker),
    ]

    /// Fixtures the sniffer has no signature for: libavformat's detection names them.
    // Sun raster is sniffed by its magic: its structure check needs the container before FFmpeg.
    static let leftToLibavformat: Set<String> = ["au_mulaw.au", "wave64_s16le.w64", "voc_u8.voc", "pcx_rgb.pcx", "sgi_rgb.sgi",
                                                 "xwd_rgb.xwd", "dpx_rgb.dpx"]

    /// Identified, but nothing here converts them: file and words the `unsupported` reason holds.
    static let refused: [(String, String)] = [
        ("tga_rgb.tga", "TGA is not read here"), ("annexb_h264.h264", "raw H.264 stream has no timestamps"),
        ("annexb_hevc.hevc", "raw HEVC stream has no timestamps"), ("bmp_v2_52.bmp", "52-byte BITMAPV2INFOHEADER"),
    ]

    /// Not media: file and what the refusal must call it.
    static let notMedia: [(String, String)] = [
        ("pdf_binary.pdf", "a PDF document: a document is not media here"), ("svg_vector.svg", "a vector image is not media here"),
        ("html_page.html", "an HTML page"), ("zip_archive.zip", "a ZIP archive"), ("json_body.json", "JSON text"),
        ("text_plain.txt", "the bytes are text"), ("elf_executable.bin", "executable (ELF)"),
        ("pe_executable.exe", "executable (Windows PE)"), ("macho_executable.bin", "executable (Mach-O)"),
        ("random_bytes.bin", "no known signature"),
    ]

    /// The picture size ffprobe (vipsheader for BigTIFF, which FFmpeg does not read) gives; all the
    /// pictures are generated at 64×48, which is also the answer for the BMP header FFmpeg refuses.
    static func referenceSize(_ file: String, container: Container) throws -> (Int, Int) {
        if container == .tiff {
            let width = try TestEnvironment.run("vipsheader", ["-f", "width", path(file)]).stdout
            let height = try TestEnvironment.run("vipsheader", ["-f", "height", path(file)]).stdout
            return (Int(width.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, Int(height.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        let forced = container == .cur ? ["-f", "ico"] : []
        let run = try TestEnvironment.run("ffprobe", ["-v", "error"] + forced + ["-select_streams", "v:0", "-show_entries",
                                                                                  "stream=width,height", "-of", "csv=p=0", path(file)])
        let numbers = run.stdout.split(whereSeparator: { $0 == "," || $0.isNewline }).compactMap { Int($0) }
        guard numbers.count >= 2, numbers[0] > 0 else { return (64, 48) }
        return (numbers[0], numbers[1])
    }

    @Test("media is probed with its real kind, container, size and duration (as ffprobe/vipsheader read it)", arguments: media)
    func identified(file: String, kind: MediaKind, container: Container) throws {
        // When
        let info = try Through.probe(Self.path(file), scope: Self.folder)
        // Then
        #expect(info.kind == kind)
        #expect(info.container == container)
        #expect(info.uniformType != nil, "\(file): no type")
        if kind != .audio {
            let (width, height) = try Self.referenceSize(file, container: container)
            #expect(info.width == width && info.height == height, "\(file): \(info.width ?? 0)x\(info.height ?? 0) vs \(width)x\(height)")
        }
        if kind != .image, let reference = try FFprobeReport.of(Self.path(file)).duration {
            let duration = try #require(info.duration, "\(file): no duration")
            #expect(abs(duration - reference) <= 0.1, "\(file): \(duration) s vs ffprobe \(reference) s")
        }
    }

    @Test("the sniffer agrees with libavformat's own detection, which names what the sniffer leaves to it", arguments: media.map(\.0))
    func agreesWithLibavformat(file: String) throws {
        let reader = try FileReader(path: Self.path(file))
        let sniffed = FormatSniffer.sniff(reader)
        #expect((sniffed.family == .unknown) == Self.leftToLibavformat.contains(file), "\(file): sniffed \(sniffed.container)")
        let guess = AVFormatGuess.guess(head: reader.read(at: 0, count: 1 << 15)).flatMap { $0.score >= 25 ? $0.demuxer : nil }
        if sniffed.family == .unknown {
            // Left to libavformat by the sniffer: its detection must name a row of the table.
            #expect(guess.flatMap(Demuxers.container(forDemuxer:)) != nil, "\(file): libavformat says \(guess ?? "nothing")")
            return
        }
        guard let guess, Demuxers.container(forDemuxer: guess) != nil else { return }
        #expect(sniffed.container.facts?.demuxers.contains(guess) == true, "\(file): sniffed \(sniffed.container), libavformat says \(guess)")
    }

    @Test("every convertible format is prepared into an attachment that re-validates for ios")
    func prepared() throws {
        // Given
        let refusedFiles = Set(Self.refused.map(\.0))
        let inputs = Self.media.filter { !refusedFiles.contains($0.0) }
        let out = TestEnvironment.temporaryFolder("formats-prepared")
        defer { try? FileManager.default.removeItem(at: out) }
        // When
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--profile", "ios", "--out", out.path] + inputs.map { Self.path($0.0) })
        // Then
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == inputs.count, "\(run.stderr)")
        for (line, (file, kind, _)) in zip(lines, inputs) {
            let output = try #require(line["output"] as? String, "\(file) not prepared: \(line["error"] ?? "")")
            let report = try Through.validate(output, scope: out, profile: .ios)
            #expect(report.ok, "\(file) → \(output): \(report.diagnostics.map(\.message))")
            #expect(try Through.probe(output, scope: out).kind == kind, "\(file): the output changed kind")
        }
    }

    @Test("formats nothing here converts are refused as unsupported, saying why", arguments: refused)
    func refusedPrecisely(file: String, reason: String) throws {
        let out = TestEnvironment.temporaryFolder("formats-refused")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--profile", "ios", "--out", out.path, Self.path(file)])
        let line = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let error = try #require(line["error"] as? [String: Any])
        #expect(error["code"] as? String == "unsupported")
        #expect((error["message"] as? String ?? "").contains(reason), "\(error)")
        // validate says the same (a per-file refusal, the BMP header, is found by the decoder only).
        let info = try Through.probe(Self.path(file), scope: Self.folder)
        if info.container.facts?.refusal != nil {
            let report = try Through.validate(Self.path(file), scope: Self.folder, profile: .ios)
            #expect(report.diagnostics.contains { $0.fix?.contains(reason) == true }, "\(report.diagnostics.map(\.fix))")
        }
        // A variant the decoder lacks is never called corrupt by the deep check either.
        let deep = try Through.validate(Self.path(file), scope: Self.folder, profile: .ios, deep: true)
        #expect(!deep.diagnostics.contains { $0.code == .corrupt }, "\(deep.diagnostics.map(\.message))")
    }

    @Test("non-media is unrecognized-type, and the message names what the bytes are", arguments: notMedia)
    func nonMediaNamed(file: String, words: String) throws {
        #expect {
            _ = try Through.probe(Self.path(file), scope: Self.folder)
        } throws: { error in
            guard let error = error as? ProbeError, error.code == .unrecognizedType else { return false }
            return error.message.contains(words)
        }
    }

    @Test("an MP3 behind chained ID3v2 tags or junk starts at its first frame; its structure is intact, or recoverable when junk comes before the frame",
          arguments: ["mp3_chained_id3.mp3", "mp3_junk_before_frames.mp3", "mp3_id3_then_junk.mp3"])
    func mp3AfterTagsAndJunk(file: String) throws {
        let sniffed = FormatSniffer.sniff(try FileReader(path: Self.path(file)))
        #expect(sniffed.container == .mp3)
        #expect(sniffed.audioOffset > 2000)
        let header = try FileReader(path: Self.path(file)).read(at: sniffed.audioOffset, count: 4)
        #expect(MPEGAudioFrame(header, at: 0) != nil)
        let verdict = StructureChecker.check(path: Self.path(file), sniff: sniffed)
        if file.contains("junk") {
            guard case .recoverable(let reason) = verdict else { Issue.record("\(verdict)"); return }
            #expect(reason.contains("junk bytes before the first frame"), "\(reason)")
        } else {
            #expect(verdict == .intact)
        }
    }

    @Test("tracker modules (XM, IT, S3M, MOD) and Musepack SV7 and SV8 are told apart by their signatures (issue 29: they were unrecognised, and SV8 was opened with the SV7 demuxer)")
    func trackerModulesAndMusepack() {
        func sniff(_ bytes: [UInt8]) -> Container {
            FormatSniffer.audioVideoFormat(bytes + [UInt8](repeating: 0, count: 1200), fileSize: Int64(bytes.count + 1200)) ?? .unknown
        }
        #expect(sniff(Array("Extended Module: ".utf8) + Array("song".utf8) + [UInt8](repeating: 0x20, count: 16) + [0x1A]) == .xm)
        #expect(sniff(Array("Extended Module: is what this text is about".utf8)) != .xm)
        // A valid MP3 whose ID3 comment holds "M.K." at byte 1080 is not a module.
        #expect(sniff(Array("ID3".utf8) + [3, 0, 0, 0, 0, 0x10, 0] + [UInt8](repeating: 0x20, count: 1067) + Array("M.K.".utf8)) != .mod)
        #expect(sniff(Array("IMPMsong".utf8)) == .impulseTracker)
        var s3m = [UInt8](repeating: 0, count: 48)
        s3m[29] = 16
        s3m.replaceSubrange(44..<48, with: Array("SCRM".utf8))
        #expect(sniff(s3m) == .s3m)
        var header = [UInt8](repeating: 0, count: 1080)
        header[950] = 1  // the song length: one pattern
        for tag in ["M.K.", "FLT4", "8CHN", "16CH"] {
            #expect(sniff(header + Array(tag.utf8)) == .mod, "\(tag)")
        }
        #expect(sniff(header + Array("ABCD".utf8)) != .mod)
        #expect(sniff([UInt8](repeating: 0, count: 1080) + Array("M.K.".utf8)) != .mod, "a song of no pattern")
        #expect(sniff(Array("MPCKSH".utf8)) == .musepack8 && Container.musepack8.facts?.demuxer == "mpc8")
        #expect(sniff(Array("MP+".utf8) + [0x17]) == .musepack && Container.musepack.facts?.demuxer == "mpc")
    }

    @Test("a tracker module cut short (in its header, tables, patterns or samples) is corrupt, not rendered as silence; the whole one is intact", arguments: [
        ("mod_protracker.mod", Container.mod, [1090, 1084 + 1024]),
        ("s3m_screamtracker.s3m", .s3m, [0x50, 0x64, 0x80, 0xD0, 0x200]),
        ("xm_fasttracker.xm", .xm, [70, 300, 400, 480, 700]),
        ("it_impulsetracker.it", .impulseTracker, [0x80, 0xC4, 0xF0, 0x150, 0x300]),
    ])
    func trackerModuleCut(file: String, container: Container, lengths: [Int]) throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path(file))))
        let sniff = FormatSniffer.Result(container)
        let folder = TestEnvironment.temporaryFolder("tracker-cut")
        #expect(StructureChecker.check(path: Self.path(file), sniff: sniff) == .intact)
        for length in lengths + [whole.count - 1] {
            let cut = folder.appendingPathComponent("cut-\(length)-\(file)")
            try Data(whole.prefix(length)).write(to: cut)
            guard case .corrupt(let reason) = StructureChecker.check(path: cut.path, sniff: sniff) else {
                Issue.record("\(file) cut at \(length): \(StructureChecker.check(path: cut.path, sniff: sniff))")
                continue
            }
            #expect(reason.contains("(truncated)"), "\(reason)")
        }
    }

    @Test("a module whose song plays no pattern (every order 'end of song') has no declared length: validate's transcode is what prepare does, the libopenmpt render (0.1 s) into M4A, not trimmed, not 'lasts 0 s'")
    func trackerModuleWithoutASong() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path("s3m_screamtracker.s3m"))))
        let orders = Int(bytes[0x20]) | Int(bytes[0x21]) << 8
        for i in 0..<orders { bytes[0x60 + i] = 0xFF }
        let folder = TestEnvironment.temporaryFolder("tracker-empty")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("empty.s3m").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let validated = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        #expect(validated.stdout.contains("transcode PCM_F32LE→AAC (M4A)"), "\(validated.stdout)")
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, input])
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["ok"]?.boolValue == true, "\(run.stdout)")
        #expect(report["actions"]?.arrayValue?.compactMap(\.stringValue) == ["transcoded"], "\(run.stdout)")
        let output = try #require(report["output"]?.stringValue)
        let probed = try FFprobeReport.of(output)
        #expect(probed.audio?.codec == "aac", "\(run.stdout)")
    }

    @Test("a DASH/HLS media segment (the fragments of a fragmented MP4 without its ftyp and moov, with or without a styp first) is named as one by every verb, unsupported, not corrupt nor unrecognized")
    func mediaSegment() throws {
        let movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mp4_fragmented_h264_160x120_2s.mp4"))))
        var offset = 0, fragments: [UInt8] = []
        while offset + 8 <= movie.count {
            let size = Int(movie[offset]) << 24 | Int(movie[offset + 1]) << 16 | Int(movie[offset + 2]) << 8 | Int(movie[offset + 3])
            guard size >= 8 else { break }
            let type = String(decoding: movie[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type != "ftyp" && type != "moov" { fragments += movie[offset..<min(movie.count, offset + size)] }
            offset += size
        }
        let styp: [UInt8] = [0, 0, 0, 24] + Array("stypmsdh".utf8) + [0, 0, 0, 0] + Array("msdhdash".utf8)
        let folder = TestEnvironment.temporaryFolder("media-segment")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes) in [("bare.m4s", fragments), ("styp.m4s", styp + fragments)] {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for verb in [["probe"], ["validate", "--deep"], ["prepare", "--out", folder.appendingPathComponent("out").path]] {
                let run = try TestEnvironment.runAttachKit(verb + ["--json", path])
                let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                let code = report["error"]?["code"]?.stringValue ?? report["diagnostics"]?.arrayValue?.first?["code"]?.stringValue
                #expect(code == "unsupported" || code == "unsupported-codec", "\(name) \(verb[0]): \(run.stdout)")
                #expect(run.stdout.contains("a media segment") && run.stdout.contains("initialization segment"), "\(name) \(verb[0]): \(run.stdout)")
            }
        }
    }

    @Test("a tracker module whose header counts are hostile (65,535 of every part) is checked in bounded reads, and corrupt")
    func trackerModuleHostileCounts() throws {
        let folder = TestEnvironment.temporaryFolder("tracker-hostile")
        for (file, container, offsets) in [("s3m_screamtracker.s3m", Container.s3m, [0x20, 0x22, 0x24]), ("xm_fasttracker.xm", .xm, [70, 72]),
                                           ("it_impulsetracker.it", .impulseTracker, [0x20, 0x22, 0x24, 0x26])] {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path(file))))
            for offset in offsets { bytes[offset] = 0xFF; bytes[offset + 1] = 0xFF }
            let path = folder.appendingPathComponent(file).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let start = ContinuousClock.now
            let verdict = StructureChecker.check(path: path, sniff: FormatSniffer.Result(container))
            guard case .corrupt = verdict else { Issue.record("\(file): \(verdict)"); continue }
            #expect(ContinuousClock.now - start < .seconds(5), "\(file)")
        }
    }

    @Test("a JPEG 2000 picture whose valid SIZ FFmpeg 5.1 refuses (a component sampled 1 in 13) is unsupported, named, from every verb; a SIZ that breaks the standard is corrupt (issue 29)")
    func jpeg2000DecoderLimits() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path("j2k_codestream.j2k"))))
        let soc = try #require((0..<(bytes.count - 4)).first { bytes[$0...].starts(with: [0xFF, 0x4F, 0xFF, 0x51]) })
        let folder = TestEnvironment.temporaryFolder("jpeg2000-limits")
        bytes[soc + 4 + 38 + 1] = 13  // the first component's XRsiz
        let sampled = folder.appendingPathComponent("sampled.jp2")
        try Data(bytes).write(to: sampled)
        for verb in [["probe"], ["validate", "--deep"], ["prepare", "--out", folder.appendingPathComponent("out").path], ["thumbnail", "--out", folder.appendingPathComponent("t.jpg").path]] {
            let run = try TestEnvironment.runAttachKit(verb + ["--json", sampled.path])
            let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let code = report["error"]?["code"]?.stringValue ?? report["diagnostics"]?.arrayValue?.first?["code"]?.stringValue
            #expect(code == "unsupported" || code == "unsupported-codec", "\(verb[0]): \(run.stdout)")
            #expect(run.stdout.contains("a 64×48 grid, 3 components of 8 bits, sampled 1 in 13×1"), "\(verb[0]): \(run.stdout)")
        }
        // Xsiz not past XOsiz: no picture at all
        bytes[soc + 4 + 38 + 1] = 1
        bytes.replaceSubrange((soc + 4 + 12)..<(soc + 4 + 16), with: [0, 0, 0x10, 0])
        let broken = folder.appendingPathComponent("broken.jp2")
        try Data(bytes).write(to: broken)
        let run = try TestEnvironment.runAttachKit(["probe", "--json", broken.path])
        #expect(TestEnvironment.errorCode(run.stdout) == "corrupt", "\(run.stdout)")
    }

    @Test("the chain of tags is followed, however many (sizes synchsafe, footers counted)")
    func chainedTags() throws {
        let sniffed = FormatSniffer.sniff(try FileReader(path: Self.path("mp3_chained_id3.mp3")))
        // Three tags of 8,000-byte bodies behind 10-byte headers, the second one with a 10-byte footer.
        #expect(sniffed.audioOffset == 8010 + 8020 + 8010)
    }

    @Test("random bytes, text and JSON are never called media, even with MP3 frame sync bytes inside")
    func neverMedia() throws {
        var generator = SplitMix64(seed: 18)
        let folder = TestEnvironment.temporaryFolder("never-media")
        defer { try? FileManager.default.removeItem(at: folder) }
        var samples: [[UInt8]] = (0..<60).map { k in
            (0..<(1024 * (1 + k % 40))).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        // Sync-like pairs sprinkled through random bytes: a lone header is not a stream.
        samples += (0..<20).map { _ in
            (0..<8192).map { i in i % 417 == 0 ? 0xFF : i % 417 == 1 ? 0xFB : UInt8.random(in: 0...255, using: &generator) }
        }
        samples.append(Array(String(repeating: "{\"key\": [1, 2, 3], \"text\": \"héllo\"}\n", count: 200).utf8))
        samples.append(Array(String(repeating: "Plain words, numbers 12345 and ÿ accents.\n", count: 300).utf8))
        for (index, bytes) in samples.enumerated() {
            let url = folder.appendingPathComponent("sample-\(index)")
            try Data(bytes).write(to: url)
            let sniffed = FormatSniffer.sniff(try FileReader(path: url.path))
            #expect(sniffed.family == .unknown, "sample \(index) sniffed as \(sniffed.container)")
        }
    }

    @Test("signatures without a fixture (no encoder here) map to their containers", arguments: [
        (Array("MPCK".utf8) + Array("SH".utf8) + [0x10, 0, 0, 0], Container.musepack8),
        (Array("MP+".utf8) + [0x17] + [UInt8](repeating: 0, count: 24), .musepack),
        (Array("caff".utf8) + [0, 1, 0, 0] + Array("desc".utf8) + [0, 0, 0, 0, 0, 0, 0, 32] + Array("aac ".utf8), .caf),
        (Array("DDS ".utf8) + [124, 0, 0, 0] + [UInt8](repeating: 0, count: 16), .dds),
        ([0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0], .exr),
        (Array("P5\n# comment\n64 48\n255\n".utf8) + [UInt8](repeating: 0x80, count: 64), .pnm),
        (Array("P1 is not a picture header\n".utf8), .text),
        ([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3], .gzip),
        (Array("<?xml version=\"1.0\"?>\n<note>hello</note>\n".utf8), .xml),
        ([0x63, 0x61, 0x66, 0xE9, 0x20, 0x6E, 0x6F, 0x69, 0x72, 0x0A], .text),
    ] as [([UInt8], Container)])
    func signatureWithoutFixture(bytes: [UInt8], expected: Container) throws {
        #expect(try FormatSnifferTests.sniff(bytes).container == expected)
    }

    @Test("one table: every media row has a type and a reader or a refusal, and its demuxers map back to a row")
    func tableIsConsistent() {
        for row in FormatTable.rows {
            if row.kind == .unknown {
                #expect(row.type == nil && row.reader == .none, "\(row.container)")
                continue
            }
            #expect(row.type != nil || row.container == .ebml, "\(row.container) has no type")
            #expect(Demuxers.name(for: row.container) == row.demuxer)
            for demuxer in row.demuxers {
                #expect(FormatTable.facts(forDemuxer: demuxer) != nil)
            }
            #expect(row.reader != .none || row.refusal != nil, "\(row.container) is read by nothing and says nothing")
        }
        #expect(Set(FormatTable.rows.map(\.container)).count == FormatTable.rows.count, "a container has two rows")
    }
}
