/// Reads a request's `options` object strictly: an unknown key or a mistyped value is a
/// `bad-options` error naming the key.
struct ServiceOptions {
    let pairs: [(String, JSONValue)]

    init(_ pairs: [(String, JSONValue)], allowed: Set<String>) throws(ServiceError) {
        for (key, _) in pairs where !allowed.contains(key) {
            throw ServiceError(code: .badOptions, message: "unknown option \(key.debugDescription) (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        self.pairs = pairs
    }

    subscript(key: String) -> JSONValue? {
        guard let value = pairs.last(where: { $0.0 == key })?.1, value != .null else { return nil }
        return value
    }

    func fail(_ key: String, _ expected: String) -> ServiceError {
        ServiceError(code: .badOptions, message: "option \(key.debugDescription) must be \(expected)")
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

    /// The option `limit.key` checked against one of ``OptionLimits``' ranges (the CLI and JSON
    /// policies check the same ones); `nil` when absent.
    func value<Value: FixedWidthInteger>(_ limit: OptionRange<Value>) throws(ServiceError) -> Value? {
        guard let value = self[limit.key] else { return nil }
        guard let number = value.doubleValue else { throw fail(limit, given: value) }
        do { return try limit.check(number: number) } catch { throw Self.badOption(error) }
    }

    /// A number of seconds checked against one of ``OptionLimits``' ranges; `nil` when absent.
    func value(_ limit: OptionRange<Double>) throws(ServiceError) -> Double? {
        guard let value = self[limit.key] else { return nil }
        guard let number = value.doubleValue else { throw fail(limit, given: value) }
        do { return try limit.check(number) } catch { throw Self.badOption(error) }
    }

    private func fail<Value>(_ limit: OptionRange<Value>, given value: JSONValue) -> ServiceError {
        Self.badOption(limit.error(given: value.serialized))
    }

    private static func badOption(_ error: OptionError) -> ServiceError {
        ServiceError(code: .badOptions, message: "option \(error.key.debugDescription) must be \(error.expected), not \(error.given)")
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
            throw ServiceError(code: .badOptions, message: error.description)
        }
    }

    /// `size`, `clip`, `frame`, `at` of a thumbnail.
    func thumbnailRequest() throws(ServiceError) -> ThumbnailRequest {
        var request = ThumbnailRequest()
        if let size = try value(OptionLimits.thumbnailSize) { request.size = size }
        if let clip = try string("clip") {
            do { request.clip = try ClippingRect(parsing: clip) } catch { throw ServiceError(code: .badOptions, message: error.description) }
        }
        request.frame = try value(OptionLimits.frame)
        request.time = try value(OptionLimits.at)
        return request
    }
}
