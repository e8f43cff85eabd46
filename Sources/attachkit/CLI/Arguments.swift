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
                    throw UsageError("unknown option \(argument)")
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
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value given for `name`.
    func value(_ name: String) -> String? { values[name]?.last }

    /// The profile `--profile NAME|PATH.json` names; default ``Profile/standard``.
    /// - Throws: ``UsageError`` when the name is unknown or the JSON policy does not load.
    func profile() throws(UsageError) -> Profile {
        do {
            return try Profile.load(value("profile") ?? Profile.standard.name)
        } catch {
            throw UsageError(error.description)
        }
    }

    /// Every value given for a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `name` as an integer in `range` (for the command's own settings, such as
    /// `--jobs`; preparation options use ``OptionLimits`` through the overloads below).
    /// - Throws: ``UsageError`` when it is not an integer in range.
    func int(_ name: String, in range: ClosedRange<Int> = 1...Int.max) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound == Int.max ? "" : String(range.upperBound)), not \(text.debugDescription)")
        }
        return number
    }

    /// The value of `--name` as one of ``OptionLimits``' integers: the same range `serve` and JSON
    /// policies accept.
    /// - Throws: ``UsageError`` naming `--name` and the range.
    func value(_ name: String, _ limit: OptionRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        do { return try limit.check(text: text) } catch { throw Self.usage(name, error) }
    }

    /// The value of `--name` as one of ``OptionLimits``' numbers of seconds (finite, in range).
    /// - Throws: ``UsageError`` naming `--name` and the range.
    func value(_ name: String, _ limit: OptionRange<Double>) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        do { return try limit.check(text: text) } catch { throw Self.usage(name, error) }
    }

    /// The value of `--name` as a byte count within `limit`: an integer, optionally with a
    /// decimal unit (`500KB`, `5MB`, `1.5M`; 1 MB = 1,000,000 bytes, as Apple's limits are stated).
    /// - Throws: ``UsageError`` naming `--name` and the range.
    func bytes(_ name: String, _ limit: OptionRange<Int64>) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        let units: [(String, Double)] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3), ("B", 1)]
        let upper = text.uppercased()
        var number = upper
        var scale = 1.0
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            number = String(upper.dropLast(suffix.count))
            scale = factor
            break
        }
        // A fraction of a byte rounds to the nearest byte; NaN, infinities and anything out of
        // range are refused by the check, never converted.
        guard OptionRange<Int64>.isDecimal(number), let value = Double(number), let bytes = (value * scale).checkedInteger(as: Int64.self),
              let checked = try? limit.check(bytes) else {
            throw UsageError("--\(name) must be \(limit.expected) such as 5000000 or 5MB, not \(text.debugDescription)")
        }
        return checked
    }

    /// How an ``OptionError`` reads on the command line: the flag instead of the library's key.
    private static func usage(_ name: String, _ error: OptionError) -> UsageError {
        UsageError("--\(name) must be \(error.expected), not \(error.given)")
    }
}
