import AttachKit

/// A parsed command line: `--name value`, `--name=value`, boolean `--flag`s and positional
/// arguments (everything after `--` is positional). Each option is declared by the command, so an
/// unknown option is a usage error instead of being ignored.
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` given the option names that take a value and the boolean flags.
    /// - Throws: ``UsageError`` for an unknown option or a missing value.
    init(_ arguments: [String], options: Set<String>, flags knownFlags: Set<String>) throws(UsageError) {
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("--") || argument == "-" {
                if !onlyPositional, argument.hasPrefix("-"), argument.count > 1, argument != "-" {
                    throw UsageError(unknownOption: String(argument.prefix { $0 != "=" }))
                }
                positional.append(argument)
                continue
            }
            if argument == "--" { onlyPositional = true; continue }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if knownFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError(unknownOption: "--" + name)
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value given for `name`.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `name` as an integer in `range` (for the command's own settings, such as
    /// `--jobs`; preparation options go through ``decode(_:)``).
    /// - Throws: ``UsageError`` when it is not an integer in range.
    func int(_ name: String, in range: ClosedRange<Int> = 1...Int.max) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound == Int.max ? "" : String(range.upperBound)), not \(text.debugDescription)")
        }
        return number
    }

    /// The value of `--name` as a byte count within `limit` (`500KB`, `5MB`; see
    /// ``OptionRange/check(bytes:key:)``), for the command's own settings such as `--worker-memory`.
    /// - Throws: ``UsageError`` naming `--name` and the range.
    func bytes(_ name: String, _ limit: OptionRange<Int64>) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        do throws(OptionError) { return try limit.check(bytes: text) } catch {
            throw UsageError("--\(name) must be \(error.expected), not \(error.givenAndHint)")
        }
    }
}
