/// Reads a request's `options` object strictly: an unknown key or a mistyped value is a
/// `bad-options` error naming the key.
struct ServiceOptions {
    let pairs: [(String, JSONValue)]

    init(_ pairs: [(String, JSONValue)], allowed: Set<String>) throws(ServiceError) {
        for (key, _) in pairs where !allowed.contains(key) {
            throw ServiceError(code: "bad-options", message: "unknown option \(key.debugDescription) (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        self.pairs = pairs
    }

    subscript(key: String) -> JSONValue? {
        guard let value = pairs.last(where: { $0.0 == key })?.1, value != .null else { return nil }
        return value
    }

    func fail(_ key: String, _ expected: String) -> ServiceError {
        ServiceError(code: "bad-options", message: "option \(key.debugDescription) must be \(expected)")
    }

    func string(_ key: String) throws(ServiceError) -> String? {
        guard let value = self[key] else { return nil }
        guard let s = value.stringValue else { throw fail(key, "a string") }
        return s
    }

    func bool(_ key: String) throws(ServiceError) -> Bool {
        guard let value = self[key] else { return false }
        guard let b = value.boolValue else { throw fail(key, "true or false") }
        return b
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(ServiceError) -> Int? {
        guard let value = self[key] else { return nil }
        guard let n = value.intValue, range.contains(n) else { throw fail(key, "an integer in \(range.lowerBound)...\(range.upperBound)") }
        return n
    }

    func seconds(_ key: String) throws(ServiceError) -> Double? {
        guard let value = self[key] else { return nil }
        guard let n = value.doubleValue, n.isFinite, n >= 0 else { throw fail(key, "a non-negative number of seconds") }
        return n
    }

    /// A profile: a built-in name, or an inline JSON policy object.
    func profile(default standard: Profile) throws(ServiceError) -> Profile {
        guard let value = self["profile"] else { return standard }
        if let name = value.stringValue {
            guard let profile = Profile.builtIn[name] else { throw fail("profile", "\(Profile.builtIn.keys.sorted().joined(separator: " or ")) or a policy object") }
            return profile
        }
        do {
            return try Profile.parse(value, source: "options.profile")
        } catch {
            throw ServiceError(code: "bad-options", message: error.description)
        }
    }

    /// `size`, `clip`, `frame`, `at` of a thumbnail.
    func thumbnailRequest() throws(ServiceError) -> ThumbnailRequest {
        var request = ThumbnailRequest()
        if let size = try int("size", in: 16...4096) { request.size = size }
        if let clip = try string("clip") {
            do { request.clip = try ClippingRect(parsing: clip) } catch { throw ServiceError(code: "bad-options", message: error.description) }
        }
        request.frame = try int("frame", in: 0...1_000_000)
        request.time = try seconds("at")
        return request
    }
}
