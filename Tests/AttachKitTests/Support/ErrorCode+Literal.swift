@testable import AttachKit

/// Tests spell codes as they appear on the wire: `#expect(error.code == "over-cap")`. A string
/// that is no code stops the test at once instead of comparing unequal forever.
extension ErrorCode: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let code = ErrorCode(rawValue: text) else { preconditionFailure("\(text.debugDescription) is no ErrorCode") }
        self = code
    }
}
