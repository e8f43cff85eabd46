import Foundation
import Testing
@testable import AttachKit

/// The header-only probe (issues 14, 33): an MP4/MOV, Matroska/WebM or FLAC whose codec
/// configuration settles pixel format, profile, level, chroma, bit depth and channel layout is
/// probed without decoding a packet, and answers exactly what the decoding probe
/// (`readsCodecConfiguration: false`) answers, on every file of TestMedia, of the corpus, and of
/// the peers' files of those formats.
@Suite("Header-only probe")
struct HeaderOnlyProbeTests {
    /// Every regular file under `root`, sorted.
    static func files(under root: URL?) -> [String] {
        guard let root, let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            found.append(url.path)
        }
        return found.sorted()
    }

    /// Probes each of `paths` both ways and expects the same answer; returns how many files of
    /// each container family the header-only path read alone ("MP4/MOV", "Matroska", "FLAC").
    @discardableResult
    static func compare(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) -> [String: Int] {
        let configured = Prober()
        let decoding = Prober(limits: ProbeLimits(readsCodecConfiguration: false))
        var headerOnly: [String: Int] = [:]
        for path in paths {
            let fast = Result { () throws(ProbeError) in try configured.probeWithSniff(path: path, displayPath: path).info }
            let slow = Result { () throws(ProbeError) in try decoding.probeWithSniff(path: path, displayPath: path).info }
            switch (fast, slow) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(path): \(differences(a, b))", sourceLocation: sourceLocation)
            case (.failure(let a), .failure(let b)):
                // The same failure; libvips' wording of it comes from its process-wide error buffer,
                // which other tests running at the same time also write ("load failed" or the detail).
                #expect(a.code == b.code, "\(path): \(a) vs \(b)", sourceLocation: sourceLocation)
            default:
                Issue.record("\(path): header-only \(fast) vs decoding \(slow)", sourceLocation: sourceLocation)
            }
            if case .success(let info) = fast, info.kind != .image, let family = family(of: info.container), readsHeaderAlone(path, info) {
                headerOnly[family, default: 0] += 1
            }
        }
        return headerOnly
    }

    /// The header-only family of a container; `nil` for containers always decoded.
    static func family(of container: Container) -> String? {
        if container.isISOBaseMedia { return "MP4/MOV" }
        if [.matroska, .webm].contains(container) { return "Matroska" }
        return container == .flac ? "FLAC" : nil
    }

    /// Whether the header-only probe settles the file (`info` is its probe result).
    static func readsHeaderAlone(_ path: String, _ info: MediaInfo) -> Bool {
        guard let demuxer = Demuxers.name(for: info.container) else { return false }
        var scratch = MediaInfo(path: path, bytes: info.bytes, kind: .unknown, container: info.container)
        return (try? AVHeaderProbe.readConfiguredHeader(path: path, demuxer: demuxer, limits: ProbeLimits().headerDescribed, into: &scratch)) == true
    }

    /// The files under `root` whose extension names Matroska, WebM, FLAC or ADTS AAC (in Ogg too).
    static func matroskaFLACAndADTS(under root: URL?) -> [String] {
        let extensions: Set<String> = ["mkv", "mka", "mk3d", "webm", "flac", "oga", "ogg", "aac", "adts"]
        return files(under: root).filter { extensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
    }

    /// The fields that differ, by name.
    static func differences(_ a: MediaInfo, _ b: MediaInfo) -> String {
        var left = "", right = ""
        dump(a, to: &left)
        dump(b, to: &right)
        let l = left.split(separator: "\n"), r = right.split(separator: "\n")
        return zip(l, r).filter { $0 != $1 }.map { "\($0.trimmingCharacters(in: .whitespaces)) ≠ \($1.trimmingCharacters(in: .whitespaces))" }
            .joined(separator: "; ")
    }

    @Test("every TestMedia file: header-only and decoding probes agree field by field")
    func testMediaAgrees() {
        let paths = Self.files(under: TestEnvironment.testMedia)
        let header = Self.compare(paths)
        print("header-only probe: \(header.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")) files read from the header alone, \(paths.count) files compared")
        #expect(header["MP4/MOV", default: 0] >= 10, "the MP4/MOV header-only path was taken \(header["MP4/MOV", default: 0]) times")
        #expect(header["Matroska", default: 0] >= 1, "the Matroska header-only path was never taken")
        #expect(header["FLAC", default: 0] >= 2, "the FLAC header-only path was taken \(header["FLAC", default: 0]) times")
    }

    @Test("every corpus file: header-only and decoding probes agree field by field", .needsCorpus)
    func corpusAgrees() {
        let header = Self.compare(Self.files(under: TestEnvironment.corpus))
        print("header-only probe (corpus): \(header) files read from the header alone")
    }

    /// Other projects' test files (``TestEnvironment/peers``), when present; none otherwise.
    @Test("peers' Matroska, WebM, FLAC and ADTS files: header-only and decoding probes agree")
    func peersAgree() {
        let paths = Self.matroskaFLACAndADTS(under: TestEnvironment.peers)
        let header = Self.compare(paths)
        print("header-only probe (peers): \(header) files read from the header alone, \(paths.count) compared")
    }

    @Test("a header that does not settle a field: the probe decodes, and agrees")
    func unsettledHeaderFallsBack() throws {
        // A FLAC whose STREAMINFO does not declare its length (total samples 0): no duration in the header.
        let source = TestEnvironment.fixture("audio/flac_22k_5s.flac")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let streamInfo = 8  // After "fLaC" and the block header.
        bytes[streamInfo + 13] &= 0xF0
        for i in 14...17 { bytes[streamInfo + i] = 0 }
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unknownLength = folder.appendingPathComponent("unknown-length.flac").path
        try Data(bytes).write(to: URL(fileURLWithPath: unknownLength))
        // WebM VP9: no configuration record settles its pixel format.
        let vp9 = TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm")
        for path in [unknownLength, vp9] {
            let info = try Prober().probeWithSniff(path: path, displayPath: path).info
            #expect(!Self.readsHeaderAlone(path, info), "\(path) was read from the header alone")
            #expect(info.sampleRate != nil && info.channels != nil, "\(path): the decoding fallback filled nothing")
            Self.compare([path])
        }
    }

    @Test("durations read from the header alone match ffprobe's", .enabled(if: TestEnvironment.hasTool("ffprobe"), "needs ffprobe"))
    func headerDurationsMatchFFprobe() throws {
        let paths = Self.files(under: TestEnvironment.testMedia) + Self.matroskaFLACAndADTS(under: TestEnvironment.peers)
        var checked = 0
        for path in paths {
            guard let info = try? Prober().probeWithSniff(path: path, displayPath: path).info, info.kind != .image,
                  let family = Self.family(of: info.container), family != "MP4/MOV", Self.readsHeaderAlone(path, info),
                  let duration = info.duration else { continue }
            let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
            guard let reference = Double(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
            #expect(abs(duration - reference) <= 0.0015, "\(path): \(duration) s vs ffprobe's \(reference) s")
            checked += 1
        }
        #expect(checked >= 3, "only \(checked) header-read durations were checked")
    }

    @Test("the SPS reader: High 10 and High 4:2:2 fixtures read from avcC name the profile ffprobe names")
    func spsProfiles() throws {
        for (file, profile, format) in [("video/mp4_h264_high10_160x90.mp4", "High 10", "yuv420p10le"),
                                        ("video/mp4_h264_high422_160x90.mp4", "High 4:2:2", "yuv422p"),
                                        ("video/mp4_hevc_main10_160x90.mp4", "Main 10", "yuv420p10le"),
                                        ("video/mp4_h264_aac_320x240_2s.mp4", nil, "yuv420p")] as [(String, String?, String)] {
            let path = TestEnvironment.fixture(file)
            var info = MediaInfo(path: path, bytes: 0, kind: .unknown, container: .mp4)
            #expect(try AVHeaderProbe.readConfiguredHeader(path: path, demuxer: "mov", limits: ProbeLimits().avInput, into: &info), "\(file)")
            #expect(info.pixelFormat == format, "\(file)")
            if let profile { #expect(info.profileName == profile, "\(file)") }
        }
    }

    @Test("Exp-Golomb codes and emulation prevention")
    func expGolomb() {
        // 1 | 010 | 011 | 00100 | 00101, then 00 00 03 01: the 03 is dropped.
        var reader = RBSPReader(nal: [0x67, 0b1010_0110, 0b0100_0010, 0b1000_0000, 0, 0, 3, 1], headerBytes: 1)
        #expect(reader.unsigned() == 0)
        #expect(reader.unsigned() == 1)
        #expect(reader.unsigned() == 2)
        #expect(reader.unsigned() == 3)
        #expect(reader.signed() == -2)
        #expect(reader.bits(7) == 0)
        #expect(reader.bits(24) == 1)
        #expect(reader.bits(1) == nil)
    }
}
