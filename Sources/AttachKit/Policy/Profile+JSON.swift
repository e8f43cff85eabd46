extension Profile {
    /// A built-in profile by name (`apple`, `ios`) or a JSON policy file by path (anything ending
    /// in `.json` or containing a `/`).
    /// - Throws: ``ProfileError``.
    public static func load(_ nameOrPath: String) throws(ProfileError) -> Profile {
        if let profile = builtIn[nameOrPath] { return profile }
        guard nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") else { throw .unknown(name: nameOrPath) }
        let text: String
        do {
            let reader = try FileReader(path: nameOrPath)
            guard reader.size <= 1_000_000 else { throw ProfileError.unreadable(path: nameOrPath, reason: "larger than 1 MB") }
            text = String(decoding: reader.read(at: 0, count: Int(reader.size)), as: UTF8.self)
        } catch let error as FileReadError {
            throw .unreadable(path: nameOrPath, reason: error.message)
        } catch let error as ProfileError {
            throw error
        } catch {
            throw .unreadable(path: nameOrPath, reason: "\(error)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw .invalid(source: nameOrPath, at: "", reason: error.description)
        }
        return try parse(value, source: nameOrPath)
    }

    /// A profile from a parsed JSON policy. Keys are checked strictly: an unknown key is an error,
    /// so a typo cannot silently loosen a policy. `"extends"` names a built-in profile to start
    /// from (default `ios`); every other key overrides it; `null` removes an optional cap.
    /// - Throws: ``ProfileError/invalid(source:at:reason:)``.
    public static func parse(_ json: JSONValue, source: String) throws(ProfileError) -> Profile {
        var reader = PolicyReader(source: source)
        return try reader.read(json)
    }

    /// The profile as a JSON policy (the same schema ``parse(_:source:)`` reads).
    public var json: JSONValue {
        func caps(_ pairs: [(String, JSONValue?)]) -> JSONValue {
            .object(pairs.map { ($0.0, $0.1 ?? .null) })
        }
        func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
        func int(_ v: Int64?) -> JSONValue? { v.map { .number(Double($0)) } }
        func int(_ v: Int?) -> JSONValue? { v.map { .number(Double($0)) } }
        return .object([
            ("name", .string(name)),
            ("summary", .string(summary)),
            ("maxAttachments", int(maxAttachments) ?? .null),
            ("image", caps([
                ("types", strings(image.types)), ("maxBytes", int(image.maxBytes)),
                ("recommendedBytes", int(image.recommendedBytes)), ("maxLongEdge", int(image.maxLongEdge)),
                ("maxPixels", int(image.maxPixels)), ("maxDecodedBytes", int(image.maxDecodedBytes)),
                ("maxFrames", int(image.maxFrames)),
            ])),
            ("audio", caps([
                ("types", strings(audio.types)), ("codecs", strings(audio.codecs)),
                ("maxBytes", int(audio.maxBytes)), ("recommendedBytes", int(audio.recommendedBytes)),
                ("maxDuration", audio.maxDuration.map(JSONValue.number)),
            ])),
            ("video", caps([
                ("types", strings(video.types)), ("videoCodecs", strings(video.videoCodecs)),
                ("audioCodecs", strings(video.audioCodecs)), ("maxBytes", int(video.maxBytes)),
                ("recommendedBytes", int(video.recommendedBytes)), ("maxDuration", video.maxDuration.map(JSONValue.number)),
                ("maxLongEdge", int(video.maxLongEdge)),
            ])),
        ])
    }
}

/// Reads a JSON policy into a ``Profile``, key by key, naming the key path in every error.
private struct PolicyReader {
    let source: String

    func fail(_ at: String, _ reason: String) -> ProfileError { .invalid(source: source, at: at, reason: reason) }

    mutating func read(_ json: JSONValue) throws(ProfileError) -> Profile {
        guard let pairs = json.objectValue else { throw fail("", "a policy must be a JSON object") }
        try checkKeys(pairs, allowed: ["name", "extends", "summary", "maxAttachments", "image", "audio", "video"], at: "")
        let baseName = try string(json["extends"], at: "extends") ?? "ios"
        guard var profile = Profile.builtIn[baseName] else {
            throw fail("extends", "no built-in profile named \(baseName.debugDescription)")
        }
        profile.name = try string(json["name"], at: "name") ?? PathResolver.fileName(source)
        profile.summary = try string(json["summary"], at: "summary") ?? "custom policy extending \(baseName)"
        if let value = json["maxAttachments"] { profile.maxAttachments = try optionalInt(value, at: "maxAttachments") }
        if let image = json["image"] { try readImage(image, into: &profile.image) }
        if let audio = json["audio"] { try readAudio(audio, into: &profile.audio) }
        if let video = json["video"] { try readVideo(video, into: &profile.video) }
        return profile
    }

    func readImage(_ json: JSONValue, into rules: inout Profile.ImageRules) throws(ProfileError) {
        guard let pairs = json.objectValue else { throw fail("image", "must be an object") }
        try checkKeys(pairs, allowed: ["types", "maxBytes", "recommendedBytes", "maxLongEdge", "maxPixels", "maxDecodedBytes", "maxFrames"], at: "image")
        if let v = json["types"] { rules.types = try types(v, at: "image.types") }
        if let v = json["maxBytes"] { rules.maxBytes = try required(v, OptionLimits.maxBytes, at: "image.maxBytes") }
        if let v = json["recommendedBytes"] { rules.recommendedBytes = try optional(v, OptionLimits.maxBytes, at: "image.recommendedBytes") }
        if let v = json["maxLongEdge"] { rules.maxLongEdge = try optional(v, OptionLimits.maxEdge, at: "image.maxLongEdge") }
        if let v = json["maxPixels"] { rules.maxPixels = try optionalInt64(v, at: "image.maxPixels") }
        if let v = json["maxDecodedBytes"] { rules.maxDecodedBytes = try optionalInt64(v, at: "image.maxDecodedBytes") }
        if let v = json["maxFrames"] { rules.maxFrames = try optional(v, OptionLimits.maxFrames, at: "image.maxFrames") }
    }

    func readAudio(_ json: JSONValue, into rules: inout Profile.AudioRules) throws(ProfileError) {
        guard let pairs = json.objectValue else { throw fail("audio", "must be an object") }
        try checkKeys(pairs, allowed: ["types", "codecs", "maxBytes", "recommendedBytes", "maxDuration"], at: "audio")
        if let v = json["types"] { rules.types = try types(v, at: "audio.types") }
        if let v = json["codecs"] { rules.codecs = try stringList(v, at: "audio.codecs") }
        if let v = json["maxBytes"] { rules.maxBytes = try required(v, OptionLimits.maxBytes, at: "audio.maxBytes") }
        if let v = json["recommendedBytes"] { rules.recommendedBytes = try optional(v, OptionLimits.maxBytes, at: "audio.recommendedBytes") }
        if let v = json["maxDuration"] { rules.maxDuration = try optionalSeconds(v, OptionLimits.maxDuration, at: "audio.maxDuration") }
    }

    func readVideo(_ json: JSONValue, into rules: inout Profile.VideoRules) throws(ProfileError) {
        guard let pairs = json.objectValue else { throw fail("video", "must be an object") }
        try checkKeys(pairs, allowed: ["types", "videoCodecs", "audioCodecs", "maxBytes", "recommendedBytes", "maxDuration", "maxLongEdge"], at: "video")
        if let v = json["types"] { rules.types = try types(v, at: "video.types") }
        if let v = json["videoCodecs"] { rules.videoCodecs = try stringList(v, at: "video.videoCodecs") }
        if let v = json["audioCodecs"] { rules.audioCodecs = try stringList(v, at: "video.audioCodecs") }
        if let v = json["maxBytes"] { rules.maxBytes = try required(v, OptionLimits.maxBytes, at: "video.maxBytes") }
        if let v = json["recommendedBytes"] { rules.recommendedBytes = try optional(v, OptionLimits.maxBytes, at: "video.recommendedBytes") }
        if let v = json["maxDuration"] { rules.maxDuration = try optionalSeconds(v, OptionLimits.maxDuration, at: "video.maxDuration") }
        if let v = json["maxLongEdge"] { rules.maxLongEdge = try optional(v, OptionLimits.maxEdge, at: "video.maxLongEdge") }
    }

    func checkKeys(_ pairs: [(String, JSONValue)], allowed: Set<String>, at path: String) throws(ProfileError) {
        for (key, _) in pairs where !allowed.contains(key) {
            throw fail(path.isEmpty ? key : "\(path).\(key)", "unknown key (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ value: JSONValue?, at path: String) throws(ProfileError) -> String? {
        guard let value else { return nil }
        guard let s = value.stringValue else { throw fail(path, "must be a string") }
        return s
    }

    func stringList(_ value: JSONValue, at path: String) throws(ProfileError) -> [String] {
        guard let items = value.arrayValue else { throw fail(path, "must be an array of strings") }
        var out: [String] = []
        for item in items {
            guard let s = item.stringValue, !s.isEmpty else { throw fail(path, "must be an array of strings") }
            out.append(s)
        }
        return out
    }

    /// Types by UTI (`public.jpeg`) or by a short name iOS would map from an extension (`jpeg`, `mp4`).
    func types(_ value: JSONValue, at path: String) throws(ProfileError) -> [String] {
        var out: [String] = []
        for name in try stringList(value, at: path) {
            if name.contains(".") {
                out.append(name)
            } else if let type = UniformType.forExtension(name) {
                out.append(type.identifier)
            } else {
                throw fail(path, "\(name.debugDescription) is neither a UTI nor a known file extension")
            }
        }
        return out
    }

    func requiredInt64(_ value: JSONValue, at path: String) throws(ProfileError) -> Int64 {
        guard let n = value.intValue, n > 0 else { throw fail(path, "must be a positive integer") }
        return Int64(n)
    }

    func optionalInt64(_ value: JSONValue, at path: String) throws(ProfileError) -> Int64? {
        if value == .null { return nil }
        return try requiredInt64(value, at: path)
    }

    func optionalInt(_ value: JSONValue, at path: String) throws(ProfileError) -> Int? {
        if value == .null { return nil }
        return Int(try requiredInt64(value, at: path))
    }

    /// A cap that is also a preparation option: the range ``OptionLimits`` gives it everywhere.
    func required<Value: FixedWidthInteger>(_ value: JSONValue, _ limit: OptionRange<Value>, at path: String) throws(ProfileError) -> Value {
        do throws(OptionError) {
            guard let number = value.doubleValue else { throw limit.error(given: value.serialized, key: path) }
            return try limit.check(number: number, key: path)
        } catch {
            throw fail(path, "must be \(error.expected), not \(error.given)")
        }
    }

    func optional<Value: FixedWidthInteger>(_ value: JSONValue, _ limit: OptionRange<Value>, at path: String) throws(ProfileError) -> Value? {
        if value == .null { return nil }
        return try required(value, limit, at: path)
    }

    func optionalSeconds(_ value: JSONValue, _ limit: OptionRange<Double>, at path: String) throws(ProfileError) -> Double? {
        if value == .null { return nil }
        do throws(OptionError) {
            guard let number = value.doubleValue else { throw limit.error(given: value.serialized, key: path) }
            return try limit.check(number, key: path)
        } catch {
            throw fail(path, "must be \(error.expected), not \(error.given)")
        }
    }
}
