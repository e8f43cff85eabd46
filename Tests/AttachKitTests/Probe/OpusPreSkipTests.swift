import Foundation
import Testing
@testable import AttachKit

@Suite("Ogg Opus: the declared duration leaves out the pre-skip")
struct OpusPreSkipTests {
    @Test("an Opus whose pre-skip is the largest there is (65,535 samples, 1.365 s) declares what decodes: probe leaves it out, validate --deep passes it, prepare notes no shortfall")
    func largePreSkip() throws {
        let folder = TestEnvironment.temporaryFolder("opus-preskip")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.opus").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=5", "-c:a", "libopus", plain])
        try #require(made.status == 0, "\(made.stderr)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let payload = 27 + Int(bytes[26])
        try #require(bytes[payload..<(payload + 8)].elementsEqual("OpusHead".utf8))
        bytes[payload + 10] = 0xFF; bytes[payload + 11] = 0xFF
        // The first page's CRC, over the page with its CRC field zeroed.
        let pageEnd = payload + (27..<payload).reduce(0) { $0 + Int(bytes[$1]) }
        for i in 22..<26 { bytes[i] = 0 }
        let crc = OggCRC.checksum(Array(bytes[0..<pageEnd]))
        for i in 0..<4 { bytes[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        let input = folder.appendingPathComponent("skip.opus").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))

        let declared = try #require(Double(try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", input])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let probed = try Prober().probeWithSniff(path: input, displayPath: input).info
        #expect(abs((probed.duration ?? 0) - (declared - 65_535.0 / 48_000)) < 0.001, "probe \(probed.duration ?? -1), ffprobe \(declared)")
        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        #expect(!deep.stdout.contains("\"corrupt\""), "\(deep.stdout)")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, input])
        #expect(prepared.status == 0 && !prepared.stdout.contains("the media ends at"), "\(prepared.stdout)")
    }
}
