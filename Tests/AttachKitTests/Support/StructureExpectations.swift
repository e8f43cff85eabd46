import Testing
@testable import AttachKit

/// Expects the structural check of `bytes`, read as `container`, to find them corrupt with a
/// reason that contains `text`.
func expectCorrupt(_ bytes: [UInt8], as container: Container, mentioning text: String, audioOffset: Int64 = 0,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let verdict = SyntheticMedia.check(bytes, as: container, audioOffset: audioOffset)
    guard case .corrupt(let reason) = verdict else {
        Issue.record("expected corrupt, got \(verdict)", sourceLocation: sourceLocation)
        return
    }
    #expect(reason.contains(text), "\(reason)", sourceLocation: sourceLocation)
}
