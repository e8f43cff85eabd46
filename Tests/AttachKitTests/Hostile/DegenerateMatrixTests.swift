import Foundation
import Testing
@testable import AttachKit

/// An MP4 whose track headers carry an all-zero display matrix: FFmpeg gives its rotation as NaN.
/// Every verb must treat it as an ordinary, unrotated movie (it used to die with SIGILL).
@Suite("Degenerate display matrix")
struct DegenerateMatrixTests {
    /// A copy of a TestMedia MP4 in a fresh folder, with the 36 matrix bytes of every `tkhd` zeroed.
    static func zeroMatrixMovie(_ fixture: String = "video/mp4_h264_aac_320x240_2s.mp4") throws -> (folder: URL, path: String) {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        var patched = 0
        var index = 4
        while index + 4 <= bytes.count {
            defer { index += 1 }
            guard bytes[index..<index + 4].elementsEqual("tkhd".utf8) else { continue }
            // After the type: version and flags (4), times, track ID, reserved and duration
            // (20 bytes, or 32 in version 1), reserved (8), layer, group, volume, reserved (8).
            let matrix = index + 4 + 4 + (bytes[index + 4] == 1 ? 32 : 20) + 16
            for offset in matrix..<matrix + 36 { bytes[offset] = 0 }
            patched += 1
        }
        try #require(patched >= 1)
        let folder = TestEnvironment.temporaryFolder("zero-matrix")
        let path = folder.appendingPathComponent("zero_matrix.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    /// Files left in `folder` that a failed or killed write would leave (`*.tmp`).
    static func leftovers(_ folder: URL) -> [String] {
        let all = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String]) ?? []
        return all.filter { $0.hasSuffix(".tmp") }
    }

    @Test("probe, validate, prepare and thumbnail in-process: unrotated, no trap, nothing partial")
    func inProcess() async throws {
        // Given
        let (folder, path) = try Self.zeroMatrixMovie()
        // When / Then: the header reads, with no rotation
        let info = try Through.probe(path, scope: folder)
        #expect(info.kind == .video)
        #expect(info.rotation == nil || info.rotation == 0)
        let report = try Through.validate(path, scope: folder, profile: .ios, deep: true)
        #expect(report.info != nil)
        // prepare: a clean outcome either way, never a partial file
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for maxBytes in [nil, Int64(40_000)] {
            let prepared = try AVPrepare.run(path, scope: folder) { _ in
                PrepareOptions(profile: .ios, outputFolder: out.path, maxBytes: maxBytes, maxEdge: 160)
            }
            #expect(prepared.report.ok || prepared.report.error != nil)
            #expect(Self.leftovers(out).isEmpty)
        }
        // thumbnail
        let ledger = try AccessLedger.forTests([folder])
        let handle = try ledger.acquire(path)
        let thumbnail = Thumbnailer().thumbnail(handle, to: out.appendingPathComponent("poster.jpg").path,
                                                request: ThumbnailRequest(size: 64, time: 0.5), ledger: ledger)
        handle.release()
        #expect(thumbnail.ok, "\(String(describing: thumbnail.error))")
        #expect(ledger.report.isClean)
        // serve
        let service = try AttachKitService(allow: [folder.path], jobs: 1)
        let response = try JSONValue.parse(await service.respond(to: #"{"id": 1, "op": "probe", "path": "\#(path)"}"#))
        #expect(response["ok"] == .bool(true))
        #expect(Self.leftovers(folder).isEmpty)
    }

    @Test("every verb of the attachkit binary exits normally on it", arguments: [
        ["probe", "--json"], ["validate", "--json", "--deep"], ["prepare", "--json", "--max-edge", "160", "--thumbnail"],
        ["prepare", "--json", "--max-bytes", "40KB", "--trim", "exact", "--max-duration", "1"], ["thumbnail", "--at", "0.5"],
    ])
    func binary(verb: [String]) throws {
        // Given
        let (folder, path) = try Self.zeroMatrixMovie()
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let target = verb[0] == "thumbnail" ? ["--out", out.appendingPathComponent("poster.jpg").path]
            : verb[0] == "prepare" ? ["--out", out.path] : []
        // When
        let result = try TestEnvironment.runAttachKit(verb + target + [path])
        // Then: 0 or 1, never a signal (128 + n) or a usage error
        #expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr.suffix(500))")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(Self.leftovers(folder).isEmpty)
    }

    @Test("batch over a folder holding it finishes normally, nothing partial")
    func batch() throws {
        // Given
        let (folder, _) = try Self.zeroMatrixMovie()
        let out = TestEnvironment.temporaryFolder("zero-matrix-batch")
        // When
        let result = try TestEnvironment.runAttachKit(["batch", folder.path, "--out", out.path, "--jobs", "1", "--json"])
        // Then
        #expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr.suffix(500))")
        #expect(Self.leftovers(out).isEmpty)
    }
}
