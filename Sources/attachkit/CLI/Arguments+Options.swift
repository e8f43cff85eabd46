import AttachKit

extension Arguments {
    /// The library key of each flag that gives an option of ``OptionTable`` (`max-bytes` →
    /// `maxBytes`; `batch`'s `thumbnails` → `thumbnail`).
    static let optionKeys: [String: String] = Dictionary(
        OptionTable.specs.flatMap { spec in OptionVerb.allCases.map { (spec.flag(for: $0), spec.key) } },
        uniquingKeysWith: { first, _ in first })

    /// The flag that gives `key` (`maxBytes` → `--max-bytes`).
    static func flag(for key: String) -> String {
        "--" + (OptionTable.specs.first { $0.key == key }?.flag ?? key)
    }

    /// The flags of ``OptionTable``'s options `verb` takes that carry a value, for ``Command/options``.
    static func options(_ verb: OptionVerb) -> Set<String> {
        Set(OptionTable.specs(for: verb).filter(\.field.kind.takesValue).map { $0.flag(for: verb) })
    }

    /// The flags of ``OptionTable``'s yes/no options `verb` takes, for ``Command/flags``.
    static func flags(_ verb: OptionVerb) -> Set<String> {
        Set(OptionTable.specs(for: verb).filter { !$0.field.kind.takesValue }.map { $0.flag(for: verb) })
    }

    /// The options given on this command line under the library's keys, for ``OptionsDecoder``.
    var optionSource: TextOptions {
        let keys = Self.optionKeys
        return TextOptions(values: values.keys.sorted().compactMap { name in keys[name].flatMap { key in value(name).map { (key, $0) } } },
                           flags: flags.sorted().compactMap { keys[$0] })
    }

    /// Reads options through the library's ``OptionsDecoder``; what is wrong is a usage error
    /// naming the flag (`--max-bytes must be ...`).
    func decode<Value>(_ read: (OptionsDecoder) throws(OptionsError) -> Value) throws(UsageError) -> Value {
        do throws(OptionsError) {
            return try read(OptionsDecoder(optionSource))
        } catch {
            throw UsageError(error.message(naming: Self.flag(for:)))
        }
    }

    /// The profile `--profile NAME|PATH.json` names; default ``Profile/standard``.
    /// - Throws: ``UsageError`` when the name is unknown or the JSON policy does not load.
    func profile() throws(UsageError) -> Profile {
        try decode { options throws(OptionsError) in try options.profile(default: .standard) }
    }
}
