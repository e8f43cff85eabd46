import CBuildCommit

/// The commit this binary was built from (`CBuildCommit`): baked in by scripts/package.sh, "unknown"
/// for a plain `swift build`.
enum BuildCommit {
    static let value = String(cString: ak_build_commit())
}
