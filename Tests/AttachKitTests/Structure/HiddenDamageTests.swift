import Foundation
import Testing
@testable import AttachKit

/// Damage the decoders here do not report by themselves: a cut lossless or 12-bit JPEG (FFmpeg's
/// decoder fills the rest and logs), a cut arithmetic-coded JPEG (zeros stand in for missing data,
/// legally), an APNG frame whose rows stop early or frames that are missing (FFmpeg shows what it
/// finds), a PNG whose zlib checksum does not match (libvips tells libpng to ignore it), a HEIF
/// whose `ispe` understates its picture. Each is
/// found, from `validate --deep` and from `prepare`; the whole files beside them are not.
@Suite("Hidden damage: what lenient decoders would pass")
struct HiddenDamageTests {
    /// The structure verdict for the file at `path`, checked as `container`.
    static func verdict(_ path: String, as container: Container, family: MediaKind = .image) -> StructureVerdict {
        StructureChecker.check(path: path, sniff: FormatSniffer.Result(container: container, family: family, audioOffset: 0))
    }

    /// `bytes` cut to `share` of their length, a JPEG EOI put back.
    static func cutWithEOI(_ bytes: Data, share: Double) -> Data {
        bytes.prefix(Int(Double(bytes.count) * share)) + Data([0xFF, 0xD9])
    }

    /// The error code of `validate --deep` and of `prepare` for `path`, from the CLI's JSON.
    static func codes(_ path: String) throws -> (deep: [String], prepare: String?) {
        let validate = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", path])
        let report = try JSONValue.parse(validate.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let deep = (report["diagnostics"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        let out = TestEnvironment.temporaryFolder("hidden-out")
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, path])
        return (deep, TestEnvironment.errorCode(prepare.stdout))
    }

    func ffmpeg(_ arguments: [String]) throws {
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
    }

    @Test("a lossless JPEG cut in half with its EOI put back is corrupt from validate --deep and prepare; the whole one is re-encoded")
    func cutLosslessJPEG() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-lossless")
        let whole = folder.appendingPathComponent("lossless.jpg").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", "-c:v", "ljpeg", "-pix_fmt", "bgr24", whole])
        let cut = folder.appendingPathComponent("cut.jpg")
        try Self.cutWithEOI(Data(contentsOf: URL(fileURLWithPath: whole)), share: 0.4).write(to: cut)
        let damaged = try Self.codes(cut.path)
        #expect(damaged.deep.contains("corrupt"), "\(damaged)")
        #expect(damaged.prepare == "corrupt", "\(damaged)")
        let fine = try Self.codes(whole)
        #expect(!fine.deep.contains("corrupt") && fine.prepare == nil, "\(fine)")
    }

    @Test("a sequential arithmetic-coded JPEG cut short with its EOI put back is corrupt; whole ones, flat ones and progressive ones are not")
    func cutArithmeticJPEG() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-arithmetic")
        let detailed = folder.appendingPathComponent("detailed.jpg").path
        let flat = folder.appendingPathComponent("flat.jpg").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x480", "-frames:v", "1", "-q:v", "3", detailed])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=1280x720", "-frames:v", "1", flat])
        var names: [String: String] = [:]
        for (source, name, options) in [(detailed, "arith", ["-arithmetic"]), (detailed, "arith-progressive", ["-arithmetic", "-progressive"]),
                                        (flat, "arith-flat", ["-arithmetic"])] {
            let path = folder.appendingPathComponent(name + ".jpg").path
            let made = try TestEnvironment.run("jpegtran", options + ["-outfile", path, source])
            try #require(made.status == 0, "jpegtran: \(made.stderr)")
            names[name] = path
        }
        // Whole files, and a grey fill whose 45 rows code to 5 bytes: intact
        for name in ["arith", "arith-progressive", "arith-flat"] {
            #expect(Self.verdict(try #require(names[name]), as: .jpeg) == .intact, "\(name)")
        }
        // Cut at 30 % and 60 %: corrupt, naming where the data stop
        let whole = try Data(contentsOf: URL(fileURLWithPath: try #require(names["arith"])))
        for share in [0.3, 0.6] {
            let cut = folder.appendingPathComponent("cut-\(Int(share * 100)).jpg")
            try Self.cutWithEOI(whole, share: share).write(to: cut)
            guard case .corrupt(let reason) = Self.verdict(cut.path, as: .jpeg) else {
                Issue.record("a cut at \(share) passed")
                continue
            }
            #expect(reason.contains("arithmetic-coded data stop after"), "\(reason)")
        }
        let cut = folder.appendingPathComponent("cut-30.jpg").path
        let codes = try Self.codes(cut)
        #expect(codes.deep.contains("corrupt") && codes.prepare == "corrupt", "\(codes)")
    }

    /// Rewrites an APNG's chunks with fresh CRCs (Python's zlib): `short.png` (frame 3's data a
    /// zlib stream of a third of its rows), `tail.png` (the last two frames dropped, acTL still
    /// says 5) and `gap.png` (frame 3 taken out of the middle: the sequence numbers jump).
    static let apngEdits = #"""
    import sys, struct, zlib
    src, out = sys.argv[1], sys.argv[2]
    b = open(src, 'rb').read()
    chunks, p = [], 8
    while p + 12 <= len(b):
        n = struct.unpack('>I', b[p:p+4])[0]
        chunks.append([b[p+4:p+8], b[p+8:p+8+n]]); p += 12 + n
    def write(name, cs):
        data = b[:8] + b''.join(struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d)) for t, d in cs)
        open(out + '/' + name, 'wb').write(data)
    short, seen = [], 0
    for t, d in chunks:
        if t == b'fdAT':
            seen += 1
            if seen == 2:
                rows = zlib.decompress(d[4:]); d = d[:4] + zlib.compress(rows[:len(rows) // 3])
        short.append([t, d])
    write('short.png', short)
    end = [i for i, c in enumerate(chunks) if c[0] == b'IEND'][0]
    write('tail.png', chunks[:end - 4] + [chunks[end]])
    controls = [i for i, c in enumerate(chunks) if c[0] == b'fcTL']
    write('gap.png', [c for i, c in enumerate(chunks) if i not in (controls[2], controls[2] + 1)])
    """#

    @Test("APNG: a frame whose rows stop early, missing frames and a sequence-number gap are corrupt; the whole APNG is intact", .needsPython)
    func apngFrames() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-apng")
        let whole = folder.appendingPathComponent("whole.png").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=5:d=1", "-plays", "0", "-f", "apng", whole])
        let edited = try TestEnvironment.run("python3", ["-c", Self.apngEdits, whole, folder.path])
        try #require(edited.status == 0, "\(edited.stderr)")
        #expect(Self.verdict(whole, as: .png) == .intact)
        for (name, words) in [("short.png", "rows are missing"), ("tail.png", "frames are missing"), ("gap.png", "sequence number")] {
            guard case .corrupt(let reason) = Self.verdict(folder.appendingPathComponent(name).path, as: .png) else {
                Issue.record("\(name) passed")
                continue
            }
            #expect(reason.contains(words), "\(name): \(reason)")
        }
        let codes = try Self.codes(folder.appendingPathComponent("short.png").path)
        #expect(codes.deep.contains("corrupt") && codes.prepare == "corrupt", "\(codes)")
    }

    /// Writes beside a still PNG: `adler.png` (the zlib checksum altered, the chunk CRC made to
    /// match), `unended.png` (every row there, the stream's last block and checksum gone, the CRC
    /// made to match) and `stray.png` (an fcTL chunk without acTL, which decoders ignore).
    static let stillPNGEdits = #"""
    import sys, struct, zlib
    src, out = sys.argv[1], sys.argv[2]
    b = open(src, 'rb').read()
    p, chunks = 8, []
    while p + 12 <= len(b):
        n, t = struct.unpack('>I4s', b[p:p+8]); chunks.append([t, b[p+8:p+8+n]]); p += 12 + n
    def write(name, cs):
        o = b[:8]
        for t, d in cs:
            o += struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        open(out + '/' + name, 'wb').write(o)
    idat = b''.join(d for t, d in chunks if t == b'IDAT')
    raw = zlib.decompress(idat)
    rest = [c for c in chunks if c[0] != b'IDAT']
    def with_idat(data):
        return rest[:-1] + [[b'IDAT', data]] + rest[-1:]
    write('adler.png', with_idat(idat[:-1] + bytes([idat[-1] ^ 0xFF])))
    c = zlib.compressobj(); unended = c.compress(raw) + c.flush(zlib.Z_FULL_FLUSH)
    write('unended.png', with_idat(unended))
    write('stray.png', rest[:1] + [[b'fcTL', bytes(26)]] + chunks[1:])
    """#

    @Test("a still PNG whose zlib checksum was altered, or whose stream stops before its end, is corrupt; a stray fcTL is not", .needsPython)
    func stillPNGChecksum() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-png")
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = folder.appendingPathComponent("whole.png").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120", "-frames:v", "1", whole])
        let edited = try TestEnvironment.run("python3", ["-c", Self.stillPNGEdits, whole, folder.path])
        try #require(edited.status == 0, "\(edited.stderr)")
        #expect(Self.verdict(whole, as: .png) == .intact)
        #expect(Self.verdict(folder.appendingPathComponent("stray.png").path, as: .png) == .intact)
        for (name, words) in [("adler.png", "incorrect data check"), ("unended.png", "Adler-32")] {
            guard case .corrupt(let reason) = Self.verdict(folder.appendingPathComponent(name).path, as: .png) else {
                Issue.record("\(name) passed")
                continue
            }
            #expect(reason.contains(words), "\(name): \(reason)")
        }
        let codes = try Self.codes(folder.appendingPathComponent("adler.png").path)
        #expect(codes.deep.contains("corrupt") && codes.prepare == "corrupt", "\(codes)")
    }

    @Test("a FLAC file with an ID3v1 tag after its last frame (a common layout) is not corrupt")
    func flacWithID3v1() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-flac")
        let path = folder.appendingPathComponent("tagged.flac")
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=44100", "-c:a", "flac", path.path])
        var bytes = [UInt8](try Data(contentsOf: path))
        bytes += Array("TAG".utf8) + Array(repeating: 0x20, count: 124) + [0xFF]
        try Data(bytes).write(to: path)
        let codes = try Self.codes(path.path)
        #expect(!codes.deep.contains("corrupt") && codes.prepare == nil, "\(codes)")
    }

    @Test("ADTS AAC with an APEv2 tag whose footer does not flag its header (as some taggers write) is not corrupt")
    func adtsWithAPETag() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-adts")
        let path = folder.appendingPathComponent("tagged.aac")
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=44100", "-c:a", "aac", "-f", "adts", path.path])
        let item = Array(SyntheticMedia.le32(5)) + Array(SyntheticMedia.le32(0)) + Array("Title".utf8) + [0] + Array("hello".utf8)
        func ape(_ flags: Int) -> [UInt8] {
            Array("APETAGEX".utf8) + SyntheticMedia.le32(2000) + SyntheticMedia.le32(item.count + 32) + SyntheticMedia.le32(1)
                + SyntheticMedia.le32(flags) + [UInt8](repeating: 0, count: 8)
        }
        let bytes = [UInt8](try Data(contentsOf: path)) + ape(0xA000_0000) + item + ape(0)
        try Data(bytes).write(to: path)
        #expect(Self.verdict(path.path, as: .aacADTS, family: .audio) == .intact)
        let codes = try Self.codes(path.path)
        #expect(!codes.deep.contains("corrupt") && codes.prepare == nil, "\(codes)")
    }

    @Test("an Ogg Vorbis file missing a page from the middle is corrupt (the page numbers jump); the whole file is intact")
    func oggMissingPage() throws {
        let folder = TestEnvironment.temporaryFolder("hidden-ogg")
        let whole = folder.appendingPathComponent("whole.ogg")
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=4:sample_rate=44100", "-c:a", "libvorbis", "-page_duration", "500000", whole.path])
        #expect(Self.verdict(whole.path, as: .ogg, family: .audio) == .intact)
        // The pages, each 27 bytes + its segment table + its body
        let bytes = [UInt8](try Data(contentsOf: whole))
        var pages: [Range<Int>] = []
        var offset = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            let length = 27 + segments + bytes[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
            pages.append(offset..<(offset + length))
            offset += length
        }
        try #require(pages.count >= 5, "\(pages.count) pages")
        let missing = folder.appendingPathComponent("missing.ogg")
        try Data(pages.enumerated().filter { $0.offset != pages.count - 3 }.flatMap { bytes[$0.element] }).write(to: missing)
        guard case .corrupt(let reason) = Self.verdict(missing.path, as: .ogg, family: .audio) else {
            Issue.record("a missing page passed")
            return
        }
        #expect(reason.contains("pages are missing"), "\(reason)")
    }

    @Test("a HEIC or AVIF whose ispe understates its picture is judged by the picture its HEVC SPS or AV1 sequence header codes",
          arguments: ["images/heic_800x600.heic", "images/avif_800x600.avif"])
    func heifSizeFromTheSPS(fixture: String) throws {
        // Given TestMedia's 800×600 HEIC (AVIF) with its ispe rewritten to 64×64
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        let ispe = try #require(bytes.indices.first { bytes.ascii($0, 4) == "ispe" })
        bytes.replaceSubrange((ispe + 8)..<(ispe + 16), with: SyntheticMedia.be32(64) + SyntheticMedia.be32(64))
        let path = TestEnvironment.temporaryFolder("hidden-heif").appendingPathComponent("lying." + PathResolver.fileExtension(fixture)).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Then the picture libheif decodes is the SPS's (800×600 coded in whole CTBs: at least that)
        let reader = try FileReader(path: path)
        let picture = try #require(HEIFItems.pictures(reader)?.first)
        #expect(picture.width >= 800 && picture.height >= 600, "\(picture)")
    }

    @Test("a 1 fps Matroska clip whose last frame lasts to the declared duration is not cut short")
    func lowFrameRateMatroska() throws {
        let path = TestEnvironment.temporaryFolder("hidden-mkv").appendingPathComponent("slow.mkv").path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=s=320x240:r=1", "-frames:v", "3", "-c:v", "libx264", path])
        #expect(Self.verdict(path, as: .matroska, family: .video) == .intact)
    }
}
