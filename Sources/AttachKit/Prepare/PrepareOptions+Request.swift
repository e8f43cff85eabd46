extension PrepareOptions {
    /// The options as the `options` object of a `prepare` request (the serve protocol's keys, the
    /// profile as an inline policy), without `out`: what a batch sends its worker processes. The
    /// service's decoder reads them back to equal options (same ``fingerprint``).
    public var requestOptions: [(String, JSONValue)] {
        var o = JSONObjectBuilder()
        o.set("profile", profile.json)
        o.set("maxBytes", maxBytes)
        o.set("maxEdge", maxEdge)
        o.set("maxFrames", maxFrames)
        o.set("maxDuration", maxDuration)
        if start != 0 { o.set("start", start) }
        o.set("deadline", deadline)
        o.set("trim", trim.rawValue)
        if thumbnail { o.set("thumbnail", true) }
        o.set("size", thumbnailRequest.size)
        o.set("clip", thumbnailRequest.clip.map { "\($0.x),\($0.y),\($0.width),\($0.height)" })
        o.set("frame", thumbnailRequest.frame)
        o.set("at", thumbnailRequest.time)
        if keepMetadata { o.set("keepMetadata", true) }
        o.set("qualityFloor", qualityFloor)
        if verifySeconds != Self.defaultVerifySeconds { o.set("verifySeconds", verifySeconds) }
        return o.value.objectValue ?? []
    }
}
