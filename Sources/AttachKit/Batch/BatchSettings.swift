/// The profile and options a batch prepares with, as each of its manifest lines records them
/// under `settings`: `{"profile": "ios", "maxBytes": 1000000, "thumbnail": true}` (the profile by
/// name, every other option under its ``OptionTable`` key only where it is not at its default,
/// as ``PrepareOptions/requestOptions`` writes them). The batch report shows them; resuming reads
/// `optionsHash` instead.
struct BatchSettings: Sendable, Equatable {
    /// The profile's name (`ios`, `apple`, a policy's own name).
    var profile: String
    /// The other options, in the table's order.
    var options: [(key: String, value: JSONValue)]

    init(_ prepare: PrepareOptions) {
        profile = prepare.profile.name
        options = prepare.requestOptions.filter { $0.0 != "profile" }.map { (key: $0.0, value: $0.1) }
    }

    /// The settings a manifest line records; `nil` when `json` is not such an object.
    init?(json: JSONValue) {
        guard let fields = json.objectValue, let profile = json["profile"]?.stringValue else { return nil }
        self.profile = profile
        options = fields.filter { $0.0 != "profile" }.map { (key: $0.0, value: $0.1) }
    }

    var json: JSONValue { .object([("profile", .string(profile))] + options.map { ($0.key, $0.value) }) }

    /// The options as `batch` takes them on the command line: `--max-bytes 1000000 --thumbnails`
    /// (a key this version does not know is shown as `key=value`); empty when every option is at
    /// its default.
    var flags: String {
        options.map { option in
            let text = option.value.stringValue ?? option.value.serialized
            guard let spec = OptionTable.specs.first(where: { $0.key == option.key }) else { return "\(option.key)=\(text)" }
            let flag = "--" + spec.flag(for: .batch)
            return spec.field.kind.takesValue ? "\(flag) \(text)" : option.value == .bool(true) ? flag : "\(flag)=\(text)"
        }.joined(separator: " ")
    }

    static func == (lhs: BatchSettings, rhs: BatchSettings) -> Bool { lhs.json == rhs.json }
}
