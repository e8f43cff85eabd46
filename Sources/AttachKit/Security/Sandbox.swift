// PLACEHOLDER until the Landlock sandbox lands (same API).
public enum SandboxStatus: Sendable, Equatable {
    case landlock(abi: Int)
    case none(reason: String)
    public var name: String {
        switch self {
        case .landlock: return "landlock"
        case .none: return "none"
        }
    }
}

public enum Sandbox {
    public static func confine(readOnly: [String], readWrite: [String]) -> SandboxStatus {
        .none(reason: "not built")
    }
}
