/// Where the values of preparation and thumbnail options come from, under the library's keys
/// (`maxBytes`, `start`, `size`...): the command line's text, or the JSON of a `serve` request
/// (a batch's worker request included). ``OptionsDecoder`` reads either the same way.
package protocol OptionSource: Sendable {
    /// The keys given, in order.
    var keys: [String] { get }
    /// The value given for `key` (the last one when given twice); `nil` when absent.
    func value(_ key: String) -> OptionValue?
}

/// One option's value as its front end gave it.
package enum OptionValue: Sendable, Equatable {
    /// Text as typed on a command line: `5MB`, `0.5`, `exact`, a profile name or policy path.
    case text(String)
    /// A flag given without a value (`--keep-metadata`): yes.
    case flag
    /// A JSON value: a number, a string (`"5MB"`), `true`/`false`, an inline policy object.
    case json(JSONValue)
}

/// Options typed on a command line, already under the library's keys (the command line maps
/// its flag names, `--max-bytes` → `maxBytes`).
package struct TextOptions: OptionSource {
    private let given: [(key: String, value: OptionValue)]

    /// - Parameters:
    ///   - values: each key with the text given for it.
    ///   - flags: keys given as flags, without a value.
    package init(values: [(key: String, text: String)], flags: [String] = []) {
        given = values.map { ($0.key, .text($0.text)) } + flags.map { ($0, .flag) }
    }

    package var keys: [String] { given.map(\.key) }

    package func value(_ key: String) -> OptionValue? { given.last { $0.key == key }?.value }
}

/// The `options` object of a `serve` request. A `null` value counts as absent.
package struct JSONOptions: OptionSource {
    private let pairs: [(String, JSONValue)]

    package init(_ pairs: [(String, JSONValue)]) { self.pairs = pairs }

    package var keys: [String] { pairs.map(\.0) }

    package func value(_ key: String) -> OptionValue? {
        guard let value = pairs.last(where: { $0.0 == key })?.1, value != .null else { return nil }
        return .json(value)
    }
}
