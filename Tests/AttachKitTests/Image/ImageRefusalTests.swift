import Foundation
import Testing
@testable import AttachKit

/// Broken images and decompression bombs are refused with a stable code and a message, and
/// nothing is written; damage a structure check cannot see fails the decode (fail on warnings)
/// instead of becoming a half-grey picture.
@Suite("Image refusals")
struct ImageRefusalTests {
    static let codes: Set<ErrorCode> = ["corrupt", "over-cap", "unrecognized-type", "empty", "unsupported"]
    /// Malformed TestMedia files that are, or are named as, images.
    static let fixtures = CorpusRow.fixtures().filter { row in
        row.file.hasPrefix("malformed/") && (row.kind == "image" || ["jpg", "png", "gif", "webp"].contains(URL(fileURLWithPath: row.file).pathExtension))
    }
    static let corpus = CorpusRow.all().filter { $0.file.hasPrefix("malformed/") && $0.kind == "image"
        && (!$0.isValid || $0.note.hasPrefix("adversarial")) }

    static func expectRefused(_ outcome: ImagePrepare.Outcome, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = outcome.report.error
        #expect(error != nil && Self.codes.contains(error!.code), "\(name): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(!(error?.message.isEmpty ?? true), sourceLocation: sourceLocation)
        #expect(outcome.report.output == nil, sourceLocation: sourceLocation)
        #expect(outcome.files.isEmpty, "\(name) left \(outcome.files)", sourceLocation: sourceLocation)
    }

    @Test("malformed TestMedia images are refused under both profiles, nothing written", arguments: fixtures, ["apple", "ios"])
    func malformedFixture(row: CorpusRow, profile: String) throws {
        let outcome = try ImagePrepare.run(row.path, scope: TestEnvironment.testMedia, profile: Profile.builtIn[profile]!)
        Self.expectRefused(outcome, row.file)
    }

    @Test("malformed corpus images and bombs are refused, nothing written", .needsCorpus, arguments: corpus, ["apple", "ios"])
    func malformedCorpus(row: CorpusRow, profile: String) throws {
        let outcome = try ImagePrepare.run(row.path, scope: TestEnvironment.corpus!, profile: Profile.builtIn[profile]!)
        // The fuzzed HEIC's header parses and `ios` allows HEIC: it is refused only because a HEIF
        // passthrough is decoded first (ImagePipeline.passthroughBlocker).
        Self.expectRefused(outcome, row.file)
        if row.note.hasPrefix("adversarial"), row.isValid {
            #expect(outcome.report.error?.code == "over-cap", "\(row.file): \(String(describing: outcome.report.error))")
        }
    }

    @Test("damaged entropy data that the structure check cannot see fails the decode: corrupt, not a grey picture")
    func damagedData() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"))))
        let scan = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        for index in (scan + 200)..<(scan + 20_200) { bytes[index] = 0 }
        let folder = TestEnvironment.temporaryFolder("damaged")
        let path = folder.appendingPathComponent("damaged.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // The bytes are structurally sound: validation passes them...
        let validation = try Through.validate(path, scope: folder, profile: .ios)
        #expect(validation.errors.isEmpty)
        // ...so only decoding finds the damage, when the pipeline has to run (a cap below the size).
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios, maxEdge: 800)
        Self.expectRefused(outcome, "damaged.jpg")
        #expect(outcome.report.error?.code == "corrupt")
        // The thumbnail refuses it too.
        let ledger = try AccessLedger.forTests([folder])
        let handle = try ledger.acquire(path)
        let report = Thumbnailer().thumbnail(handle, to: folder.appendingPathComponent("t.jpg").path, request: ThumbnailRequest(), ledger: ledger)
        handle.release()
        #expect(report.error?.code == "corrupt")
        #expect(ledger.report.isClean)
    }
}
