/// A JSON value whose objects keep their keys in insertion order, so reports read the same way
/// every time (`path` first, `error` last) and diff cleanly.
///
/// AttachKit writes every report and protocol message through this type and parses requests and
/// policy files with ``JSONValue/parse(_:)``; no other JSON code exists in the package.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number built in Swift; written back as its shortest text (integral values without a fraction).
    case number(Double)
    /// A number read by ``parse(_:maxDepth:)``: its value, and its text exactly as it was written
    /// (`1.50`, `-0`, `1e3`, `9007199254740993`), which ``serialized`` writes back unchanged, so
    /// parse → serialize is the identity on a number's text (a request's `id` is echoed as sent,
    /// even where the `Double` would round it). Read it through ``doubleValue`` and ``intValue``.
    case parsedNumber(Double, text: String)
    case string(String)
    case array([JSONValue])
    /// Keys in insertion order. A parsed object never repeats a key (``parse(_:maxDepth:)`` refuses
    /// one); of a built object that does, lookup finds the last.
    case object([(String, JSONValue)])

    /// Numbers compare by their `Double` value, whether built or parsed and whatever their text
    /// (`1.50` == `1.5`); everything else structurally.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        if let a = lhs.doubleValue, let b = rhs.doubleValue { return a == b }
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value for `key` in an object (the last one when a key repeats), `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.last(where: { $0.0 == key })?.1
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The number's value, built or parsed; `nil` for anything else.
    public var doubleValue: Double? {
        switch self {
        case .number(let n), .parsedNumber(let n, _): return n
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [(String, JSONValue)]? { if case .object(let o) = self { return o }; return nil }
    /// The number as an `Int` when it is integral and in range, `nil` otherwise.
    public var intValue: Int? {
        guard let n = doubleValue, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }
}

/// Builds an ordered JSON object, skipping `nil` values so optional fields simply do not appear.
public struct JSONObjectBuilder: Sendable {
    public private(set) var pairs: [(String, JSONValue)] = []

    public init() {}

    public mutating func set(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        pairs.append((key, value))
    }
    public mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string)) }
    public mutating func set(_ key: String, _ value: Int?) { set(key, value.map { JSONValue.number(Double($0)) }) }
    public mutating func set(_ key: String, _ value: Int64?) { set(key, value.map { JSONValue.number(Double($0)) }) }
    public mutating func set(_ key: String, _ value: Double?) { set(key, value.map(JSONValue.number)) }
    public mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }

    public var value: JSONValue { .object(pairs) }
}
