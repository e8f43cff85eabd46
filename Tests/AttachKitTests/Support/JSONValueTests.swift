import Testing
@testable import AttachKit

@Suite("JSON values")
struct JSONValueTests {
    @Test("serializes objects in insertion order with escapes")
    func serializesInOrder() {
        var o = JSONObjectBuilder()
        o.set("path", "a \"b\"\n\u{01}")
        o.set("bytes", 12)
        o.set("missing", nil as Int?)
        o.set("ratio", 0.5)
        o.set("ok", true)
        #expect(o.value.serialized == #"{"path":"a \"b\"\n\u0001","bytes":12,"ratio":0.5,"ok":true}"#)
    }

    @Test("parses what it serializes", arguments: [
        #"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"\u00e9\ud83d\ude00"}}"#,
        #"[]"#, #"{}"#, #""x""#, #"0"#,
    ])
    func roundTrips(text: String) throws {
        let value = try JSONValue.parse(text)
        #expect(try JSONValue.parse(value.serialized) == value)
    }

    @Test("decodes escapes and surrogate pairs")
    func decodesEscapes() throws {
        let value = try JSONValue.parse(#"{"s":"tab\there \ud83d\ude00 \/"}"#)
        #expect(value["s"]?.stringValue == "tab\there 😀 /")
    }

    @Test("refuses malformed text with an offset", arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "tru", "\"unterminated", "01", "1.", "{\"a\":1}x", "\"\\ud800\"", "[\"\u{01}\"]", "nan",
    ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test("refuses nesting deeper than the limit instead of exhausting the stack")
    func limitsDepth() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect((try? JSONValue.parse(String(repeating: "[", count: 10) + String(repeating: "]", count: 10))) != nil)
    }

    @Test("a parsed number prints as its text, alone or inside a document; it compares and reads by value",
          arguments: ["1", "1.50", "-0", "1e3", "1E+3", "-2.5e-3", "0.1", "9007199254740993", "-123456789012345678901234567890"])
    func numberTextKept(text: String) throws {
        let number = try JSONValue.parse(text)
        #expect(number.serialized == text)
        let document = #"{"id":\#(text),"list":[\#(text),{"n":\#(text)}]}"#
        #expect(try JSONValue.parse(document).serialized == document)
        #expect(number == .number(Double(text)!))
        #expect(number.doubleValue == Double(text))
    }

    @Test("parsed numbers keep what the Double would lose, and still read as Int when they fit")
    func numberValues() throws {
        let big = try JSONValue.parse("9007199254740993")
        #expect(big.serialized != JSONValue.number(big.doubleValue!).serialized)
        #expect(try JSONValue.parse("1e3").intValue == 1000)
        #expect(try JSONValue.parse("1.50").intValue == nil)
        #expect(try JSONValue.parse("-0").intValue == 0)
    }

    @Test("integral numbers print without a fraction")
    func integralNumbers() {
        #expect(JSONValue.number(3).serialized == "3")
        #expect(JSONValue.number(-0.25).serialized == "-0.25")
        #expect(JSONValue.number(.infinity).serialized == "null")
    }

    @Test("a key repeated in any object is refused where it repeats, at any depth", arguments: [
        (#"{"a":1,"a":2}"#, 7), (#"{"o":{"k":1,"k":1}}"#, 12), (#"[{"x":null},{"x":1,"y":2,"x":3}]"#, 25),
    ])
    func refusesRepeatedKeys(text: String, offset: Int) {
        do {
            _ = try JSONValue.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.offset == offset)
            #expect(error.reason.hasPrefix("duplicate key"), "\(error.reason)")
        }
        // The same keys in different objects are not repeats.
        #expect((try? JSONValue.parse(#"{"a":{"a":1},"b":[{"a":2},{"a":3}]}"#)) != nil)
    }

    @Test("the members before the first problem of an object stay readable", arguments: [
        (#"{"id":7,"op":"probe","op":"x"}"#, ["id", "op"]), (#"{"id":[1,{"k":2}], "op": tru"#, ["id"]),
        (#"{"op":"probe","id":3,"#, ["op", "id"]), (#"{"id":1 "op":2}"#, ["id"]), (#"{"path":"/x" "#, ["path"]),
        (#"[{"id":1}]"#, []), ("not json", []), (#"{"a":{"id":1,"id":2}}"#, []),
    ])
    func leadingMembers(text: String, keys: [String]) {
        #expect(JSONValue.leadingMembers(of: text).map(\.0) == keys)
    }
}
