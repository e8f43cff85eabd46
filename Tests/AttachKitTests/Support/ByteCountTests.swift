import Testing
@testable import AttachKit

@Suite("Byte counts in messages")
struct ByteCountTests {
    @Test("sizes take the unit that keeps the number under 1000, three significant digits", arguments: [
        (Int64(0), "0 B"), (999, "999 B"), (1000, "1 KB"), (50_000, "50 KB"), (17_799, "17.8 KB"), (137_600, "138 KB"),
        (999_999, "1 MB"), (1_049_500, "1.05 MB"), (5_000_000, "5 MB"), (10_000_000, "10 MB"), (2_000_000_000, "2 GB"), (-1500, "-1.5 KB"),
    ])
    func sizes(bytes: Int64, text: String) {
        #expect(ByteCount.text(bytes) == text)
    }

    @Test("a limit is rounded toward zero, so '≤ X' never allows more than the limit", arguments: [
        (Int64(50_000), "50 KB"), (1_049_999, "1.04 MB"), (999_999, "999 KB"), (100_000, "100 KB"), (5_000_000, "5 MB"),
    ])
    func limits(bytes: Int64, text: String) {
        #expect(ByteCount.limit(bytes) == text)
    }

    @Test("a 50 KB budget reads as 50 KB in the fix, not as 0.1 MB")
    func budgetInFix() throws {
        // Given a policy whose image limit is 50,000 bytes and a larger photo
        let policy = try Profile.parse(JSONValue.parse(#"{"extends": "apple", "image": {"maxBytes": 50000}}"#), source: "tight")
        // When it is validated
        let report = try Through.validate(TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"),
                                          scope: TestEnvironment.testMedia, profile: policy)
        // Then the fix names the budget as it is
        let finding = try #require(report.errors.first { $0.code == .fileTooLarge })
        #expect(finding.fix == "re-encode or downscale to ≤ 50 KB")
    }
}
