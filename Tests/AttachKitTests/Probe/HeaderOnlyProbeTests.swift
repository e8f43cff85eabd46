import Foundation
import Testing
@testable import AttachKit

/// The header-only probe (issue 14): an MP4/MOV whose codec configuration settles pixel format,
/// profile, level, chroma, bit depth and channel layout is probed without decoding a packet, and
/// answers exactly what the decoding probe (`readsCodecConfiguration: false`) answers, on every
/// file of TestMedia and of the corpus.
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

    static func compare(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) -> (header: Int, compared: Int) {
        let configured = Prober()
        let decoding = Prober(limits: ProbeLimits(readsCodecConfiguration: false))
        var headerOnly = 0
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
            if case .success(let info) = fast, info.container.isISOBaseMedia, info.kind != .image,
               let demuxer = Demuxers.name(for: info.container) {
                var scratch = MediaInfo(path: path, bytes: info.bytes, kind: .unknown, container: info.container)
                if (try? AVHeaderProbe.readConfiguredHeader(path: path, demuxer: demuxer, limits: ProbeLimits().avInput, into: &scratch)) == true {
                    headerOnly += 1
                }
            }
        }
        return (headerOnly, paths.count)
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
        let (header, compared) = Self.compare(Self.files(under: TestEnvironment.testMedia))
        print("header-only probe: \(header) MP4/MOV files read from the header alone, \(compared) files compared")
        #expect(header >= 10, "the header-only path was taken \(header) times")
    }

    @Test("every corpus file: header-only and decoding probes agree field by field", .needsCorpus)
    func corpusAgrees() {
        let (header, compared) = Self.compare(Self.files(under: TestEnvironment.corpus))
        print("header-only probe (corpus): \(header) MP4/MOV files read from the header alone, \(compared) files compared")
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
