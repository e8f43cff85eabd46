/// Reads ``PrepareOptions`` and ``ThumbnailRequest`` from any ``OptionSource``: the one decoder
/// behind `attachkit prepare`, `thumbnail`, `batch`, `validate`, `serve` requests and the requests
/// a batch sends its worker processes. Every value is checked against ``OptionLimits`` before any
/// work; an error names the option by its key (``OptionsError``).
///
/// Text (a command line) and JSON read the same options with the same ranges; the differences
/// are of form only: a whole number is decimal text (`200`, not `2e2`) or a JSON number; a byte
/// count is text with an optional unit (`5MB`) or a JSON number or such a string; a profile is a
/// built-in name or a policy path as text, a built-in name or an inline policy object as JSON
/// (a request never names a file to read as a policy).
package struct OptionsDecoder: Sendable {
    package let source: any OptionSource

    package init(_ source: any OptionSource) { self.source = source }

    /// The keys ``prepareOptions(defaultProfile:defaultOutputFolder:)`` reads (``OptionTable``'s for `prepare`).
    package static let prepareKeys = OptionTable.keys(for: .prepare)

    /// - Parameter unlisted: keys accepted too but not named in the error (internal ones).
    /// - Throws: ``OptionsError/unknown(key:allowed:)`` for the first key not in `allowed`.
    package func refuseUnknownKeys(allowed: Set<String>, unlisted: Set<String> = []) throws(OptionsError) {
        if let key = source.keys.first(where: { !allowed.contains($0) && !unlisted.contains($0) }) {
            throw .unknown(key: key, allowed: Array(allowed))
        }
    }

    /// Every preparation option of ``OptionTable``, each into its field: `out` (default
    /// `defaultOutputFolder`; required without one), `profile` (default `defaultProfile`), and the
    /// others (defaults as ``PrepareOptions`` and ``ThumbnailRequest`` state them).
    /// - Throws: ``OptionsError`` naming the first option that is wrong.
    package func prepareOptions(defaultProfile: Profile, defaultOutputFolder: String? = nil) throws(OptionsError) -> PrepareOptions {
        guard let out = try string("out") ?? defaultOutputFolder else {
            throw .missing(key: "out", expected: "the output folder (inside an allowed root)")
        }
        var options = PrepareOptions(profile: defaultProfile, outputFolder: out)
        for case let field? in OptionTable.specs.map(\.field.prepareBinding) { try field.read(self, &options) }
        return options
    }

    /// The thumbnail's options of ``OptionTable`` (`size`, `clip`, `frame`, `at`).
    /// - Throws: ``OptionsError`` naming the first option that is wrong.
    package func thumbnailRequest() throws(OptionsError) -> ThumbnailRequest {
        var request = ThumbnailRequest()
        for case .thumbnail(let field)? in OptionTable.specs.map(\.field.binding) { try field.read(self, &request) }
        return request
    }

    /// `profile`: a built-in name; a policy file's path (text only); an inline policy (JSON only).
    /// - Throws: ``OptionsError/profile(_:)`` when the profile does not load,
    ///   ``OptionsError/invalid(_:)`` for a value of another kind.
    package func profile(default standard: Profile) throws(OptionsError) -> Profile {
        switch source.value("profile") {
        case nil:
            return standard
        case .text(let nameOrPath):
            do throws(ProfileError) { return try Profile.load(nameOrPath) } catch { throw .profile(error) }
        case .json(.string(let name)):
            guard let profile = Profile.builtIn[name] else { throw invalid("profile", Self.profileChoices, given: .json(.string(name))) }
            return profile
        case .json(let value) where value.objectValue != nil:
            do throws(ProfileError) { return try Profile.parse(value, source: "options.profile") } catch { throw .profile(error) }
        case let value?:
            throw invalid("profile", Self.profileChoices, given: value)
        }
    }

    private static var profileChoices: String { "\(Profile.builtIn.keys.sorted().joined(separator: " or ")) or a policy object" }

    /// One of `Choice`'s cases by name (`trim`: `fast` or `exact`); `nil` when absent.
    func choice<Choice: CaseIterable & RawRepresentable>(_ key: String) throws(OptionsError) -> Choice? where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            throw invalid(key, Choice.allCases.map { $0.rawValue.debugDescription }.joined(separator: " or "), given: .text(text))
        }
        return choice
    }

    /// A normalized clipping rect, `x,y,w,h`; `nil` when absent.
    func clip(_ key: String) throws(OptionsError) -> ClippingRect? {
        guard let text = try string(key) else { return nil }
        do throws(ClippingRectError) { return try ClippingRect(parsing: text) } catch {
            throw .invalid(OptionError(key: key, expected: ClippingRectError.expected, given: text.debugDescription))
        }
    }

    /// A string option (`out`, `clip`, `trim`...); `nil` when absent.
    package func string(_ key: String) throws(OptionsError) -> String? {
        switch source.value(key) {
        case nil: return nil
        case .text(let text), .json(.string(let text)): return text
        case let value?: throw invalid(key, "a string", given: value)
        }
    }

    /// Files named `DEVICE:INODE:SIZE:MTIME_NS` (``FileVersion/text``) in a JSON array (the
    /// worker-only `replaces`: what a batch's worker may replace); empty when absent.
    func fileVersions(_ key: String) throws(OptionsError) -> Set<FileVersion> {
        switch source.value(key) {
        case nil: return []
        case .json(.array(let items)) :
            var files = Set<FileVersion>()
            for item in items {
                guard let text = item.stringValue, let file = FileVersion(text: text) else {
                    throw invalid(key, "an array of DEVICE:INODE:SIZE:MTIME_NS strings", given: .json(item))
                }
                files.insert(file)
            }
            return files
        case let value?: throw invalid(key, "an array of DEVICE:INODE:SIZE:MTIME_NS strings", given: value)
        }
    }

    /// A yes/no option: a flag on the command line, `true`/`false` in JSON, `true`/`false`/`1`/`0`
    /// as text (an HTTP query string's `thumbnail=1`). Default `false`.
    package func bool(_ key: String) throws(OptionsError) -> Bool {
        switch source.value(key) {
        case nil: return false
        case .flag: return true
        case .json(.bool(let yes)): return yes
        case .text(let text) where Bool(text) != nil: return Bool(text)!
        case .text(let text) where text == "1" || text == "0": return text == "1"
        case let value?: throw invalid(key, "true or false", given: value)
        }
    }

    /// The whole number `limit.key` in its range; `nil` when absent.
    func integer<Value: FixedWidthInteger>(_ limit: OptionRange<Value>) throws(OptionsError) -> Value? {
        try read(limit, text: { text throws(OptionError) in try limit.check(text: text) },
                 number: { number throws(OptionError) in try limit.check(number: number) })
    }

    /// The number of seconds `limit.key` (finite, in its range); `nil` when absent.
    package func seconds(_ limit: OptionRange<Double>) throws(OptionsError) -> Double? {
        try read(limit, text: { text throws(OptionError) in try limit.check(text: text) },
                 number: { number throws(OptionError) in try limit.check(number) })
    }

    /// The byte count `limit.key`: text or a JSON string with an optional unit (`5MB`), or a
    /// JSON number; `nil` when absent.
    func bytes(_ limit: OptionRange<Int64>) throws(OptionsError) -> Int64? {
        let text = { (text: String) throws(OptionError) in try limit.check(bytes: text) }
        return try read(limit, text: text, number: { number throws(OptionError) in try limit.check(number: number) }, string: text)
    }

    /// The value of `limit.key` read from command-line `text`, a JSON `number`, or (when the
    /// option takes one) a JSON `string`; anything else is refused naming the range.
    private func read<Value>(_ limit: OptionRange<Value>, text: (String) throws(OptionError) -> Value,
                             number: (Double) throws(OptionError) -> Value,
                             string: ((String) throws(OptionError) -> Value)? = nil) throws(OptionsError) -> Value? {
        do throws(OptionError) {
            switch source.value(limit.key) {
            case nil: return nil
            case .text(let typed): return try text(typed)
            case .json(let json) where json.doubleValue != nil:
                // Refused as written (`1e400`, not `inf`).
                do { return try number(json.doubleValue!) } catch { throw limit.error(given: json.serialized) }
            case .json(.string(let written)) where string != nil: return try string!(written)
            case let value?: throw limit.error(given: Self.text(of: value))
            }
        } catch {
            throw .invalid(error)
        }
    }

    private func invalid(_ key: String, _ expected: String, given value: OptionValue) -> OptionsError {
        .invalid(OptionError(key: key, expected: expected, given: Self.text(of: value)))
    }

    /// A value as a message shows it: text quoted, JSON as written.
    private static func text(of value: OptionValue) -> String {
        switch value {
        case .text(let text): return text.debugDescription
        case .flag: return "a flag without a value"
        case .json(let json): return json.serialized
        }
    }
}
