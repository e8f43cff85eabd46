import AttachKit

extension Arguments {
    /// The command line's names of the library's option keys, in one table: `--max-bytes` is
    /// `maxBytes`. (`batch` spells `thumbnail` as `--thumbnails`.)
    static let optionNames: [(flag: String, key: String)] = [
        ("out", "out"), ("profile", "profile"), ("max-bytes", "maxBytes"), ("max-edge", "maxEdge"),
        ("max-frames", "maxFrames"), ("max-duration", "maxDuration"), ("start", "start"), ("trim", "trim"),
        ("deadline", "deadline"), ("quality-floor", "qualityFloor"), ("keep-metadata", "keepMetadata"),
        ("thumbnail", "thumbnail"), ("thumbnails", "thumbnail"), ("size", "size"), ("clip", "clip"),
        ("frame", "frame"), ("at", "at"), ("deep", "deep"), ("verify-seconds", "verifySeconds"),
    ]

    /// The flag that gives `key` (`maxBytes` → `--max-bytes`).
    static func flag(for key: String) -> String {
        "--" + (optionNames.first { $0.key == key }?.flag ?? key)
    }

    /// The options given on this command line under the library's keys, for ``OptionsDecoder``.
    var optionSource: TextOptions {
        let keys = Dictionary(Self.optionNames.map { ($0.flag, $0.key) }, uniquingKeysWith: { first, _ in first })
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
