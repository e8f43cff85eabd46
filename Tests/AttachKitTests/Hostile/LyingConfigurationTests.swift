import Foundation
import Testing
@testable import AttachKit

/// An `hvcC` record whose header claims Main 10 4:2:0 over an HEVC 4:2:2 10-bit stream reads as
/// playable from the header alone, so `prepare` would hand it back unchanged. The decode that
/// verifies a copy (and `validate --deep`) checks the first picture's pixel format against the
/// header's: a configuration that does not describe its stream is corrupt, never copied.
@Suite("Hostile: a codec configuration that lies about its stream")
struct LyingConfigurationTests {
    @Test("an hvcC claiming Main 10 4:2:0 over 4:2:2 pictures: validate --deep says corrupt, prepare does not copy it")
    func hvcCLies() throws {
        // Given: the 4:2:2 10-bit HEVC fixture with its hvcC header patched
        let folder = TestEnvironment.temporaryFolder("lying-hvcc")
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mp4_hevc_422_10bit_160x90.mp4"))))
        let record = try #require(SampleEntryTests.find(Array("hvcC".utf8), in: bytes, from: 0)) + 4
        bytes[record + 1] = 0x02                                     // general_profile_idc: Main 10
        bytes.replaceSubrange(record + 2..<record + 6, with: [0x20, 0, 0, 0])  // compatibility: Main 10
        bytes[record + 16] = 0xFD                                    // chromaFormat: 4:2:0
        let input = folder.appendingPathComponent("lie.mp4")
        try Data(bytes).write(to: input)

        // When
        let deep = try Through.validate(input.path, scope: folder, profile: .ios, deep: true)
        let outcome = try AVPrepare.run(input.path, scope: folder, profile: .ios)

        // Then: corrupt from both, naming both pixel formats; nothing handed back
        #expect(deep.diagnostics.contains { $0.code == .corrupt && $0.message.contains("yuv422p10le") }, "\(deep.diagnostics.map(\.message))")
        #expect(outcome.report.error?.code == "corrupt" && outcome.report.output == nil, "\(outcome.report.action?.rawValue ?? "") \(outcome.report.error?.message ?? "")")
        #expect(outcome.files.isEmpty)
    }

    @Test("full-range names are the same layout: yuvj420p is yuv420p")
    func names() {
        #expect(PixelFormatNames.plain("yuvj420p") == "yuv420p")
        #expect(PixelFormatNames.plain("yuv420p10le") == "yuv420p10le")
    }
}
