import Foundation
import Testing
@testable import AttachKit

/// Structural checks on tiny hand-made files: every format family intact, then cut short.
@Suite("Structure: synthetic files")
struct StructureCheckerTests {
    static let samples = SyntheticMedia.all.map(\.name)

    static func sample(_ name: String) -> (container: Container, bytes: [UInt8]) {
        let entry = SyntheticMedia.all.first { $0.name == name }!
        return (entry.container, entry.bytes)
    }

    @Test("a well-formed sample is intact", arguments: samples)
    func intact(_ name: String) {
        // Given a well-formed file
        let (container, bytes) = Self.sample(name)

        // When its structure is checked, Then it is intact
        #expect(SyntheticMedia.check(bytes, as: container) == .intact)
    }

    @Test("the sniffer and the dispatcher agree on the samples", arguments: samples)
    func sniffedLikeDeclared(_ name: String) throws {
        // Given a sample written to disk
        let (container, bytes) = Self.sample(name)
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)

        // When the sniffer identifies it and the dispatcher checks it
        let sniff = FormatSniffer.sniff(try FileReader(path: url.path))

        // Then the container is the one the sample stands for, and the check finds it intact
        #expect(sniff.container == container)
        #expect(StructureChecker.check(path: url.path, sniff: sniff) == .intact)
    }

    /// Samples cut at several points off frame and packet boundaries (after a quarter, after a half,
    /// two bytes short: one byte short would only drop WebP's tolerated pad byte). MP3 is left out: a
    /// cut inside the last frame is accepted by design (see `MPEGAudioStructure`) and has its own
    /// tests; so is the transport stream, whose synthetic packets are stuffing (the null PID): one
    /// cut short is recoverable (`StructureContainerTests`).
    static let cuts: [(String, Int)] = {
        var cuts: [(String, Int)] = []
        for sample in SyntheticMedia.all where sample.name != "mp3" && sample.name != "ts" {
            let length = sample.bytes.count
            for cut in [length / 4 + 1, length / 2 + 3, length - 2] { cuts.append((sample.name, cut)) }
        }
        return cuts
    }()

    @Test("a sample cut short is corrupt", arguments: cuts)
    func truncated(_ name: String, length: Int) {
        // Given a file cut after `length` bytes
        let (container, bytes) = Self.sample(name)
        let cut = Array(bytes.prefix(length))

        // When its structure is checked
        let verdict = SyntheticMedia.check(cut, as: container)

        // Then it is corrupt
        #expect(!verdict.isIntactOrUnchecked, "\(name) cut at \(length) of \(bytes.count): \(verdict)")
    }

    @Test("FLAC cut inside its metadata is corrupt", arguments: [3, 10, 30, 41])
    func flacCutInMetadata(length: Int) {
        let cut = Array(SyntheticMedia.flac().prefix(length))
        #expect(!SyntheticMedia.check(cut, as: .flac).isIntactOrUnchecked)
    }

    @Test("formats without a structural check are not checked")
    func unknownFormatIsNotChecked() {
        #expect(SyntheticMedia.check(Array("MAC ".utf8) + [UInt8](repeating: 0, count: 64), as: .ape) == .notChecked)
        #expect(SyntheticMedia.check(Array("plain text".utf8), as: .text) == .notChecked)
    }

    @Test("a file that cannot be opened is not checked")
    func missingFile() {
        let sniff = FormatSniffer.Result(container: .jpeg, family: .image)
        #expect(StructureChecker.check(path: "/nonexistent/attachkit/missing.jpg", sniff: sniff) == .notChecked)
    }
}
