extension PrepareOptions {
    /// A short hash of every option that changes what `prepare` produces (profile, budgets, trim,
    /// thumbnail settings...), not of where outputs go. Batch resume only skips inputs finished
    /// with the same fingerprint.
    public var fingerprint: String {
        var o = JSONObjectBuilder()
        o.set("format", 1)
        o.set("profile", profile.json)
        o.set("maxBytes", maxBytes)
        o.set("maxEdge", maxEdge)
        o.set("maxFrames", maxFrames)
        o.set("maxDuration", maxDuration)
        o.set("start", start)
        o.set("deadline", deadline)
        o.set("trim", trim.rawValue)
        o.set("thumbnail", thumbnail)
        o.set("thumbnailSize", thumbnailRequest.size)
        o.set("clip", thumbnailRequest.clip?.json)
        o.set("frame", thumbnailRequest.frame)
        o.set("time", thumbnailRequest.time)
        o.set("keepMetadata", keepMetadata)
        o.set("qualityFloor", qualityFloor)
        // Only when set: manifests written before the option existed keep their fingerprint.
        if verifySeconds != Self.defaultVerifySeconds { o.set("verifySeconds", verifySeconds) }
        return String(SHA256.hex(Array(o.value.serialized.utf8)).prefix(16))
    }
}
