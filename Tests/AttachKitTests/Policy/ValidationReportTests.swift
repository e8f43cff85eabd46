import Foundation
import Testing
@testable import AttachKit

@Suite("Validation reports as JSON")
struct ValidationReportTests {
    @Test("a report names each key once: its policy under profile, the video's codec profile under codecProfile")
    func keysOnce() throws {
        // Given an H.264 movie, whose probe names its codec profile
        let report = try Through.validate(TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4"), scope: TestEnvironment.testMedia, profile: .ios)
        // When the report is written and read back (the parser refuses a repeated key)
        let text = report.json.serialized
        let parsed = try JSONValue.parse(text)
        // Then both profiles are there, each under its own key
        #expect(parsed["profile"]?.stringValue == "ios")
        #expect(parsed["codecProfile"]?.stringValue == "High")
        #expect(try JSONValue.parse(report.info!.json.serialized)["codecProfile"]?.stringValue == "High")
    }
}
