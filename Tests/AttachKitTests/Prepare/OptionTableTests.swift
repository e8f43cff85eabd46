import Foundation
import Testing
@testable import AttachKit

/// Each option is declared once, in ``OptionTable``; the decoder, the keys each operation takes,
/// the command line's flags and usage text, the request a batch sends its workers and the
/// fingerprint all follow from it. These tests hold that line.
@Suite("Option table")
struct OptionTableTests {
    /// Every preparation option away from its default, so every field is written.
    static func everyOption() throws -> PrepareOptions {
        PrepareOptions(profile: .apple, outputFolder: "/o", maxBytes: 5_000_000, maxEdge: 1024, maxFrames: 20, maxDuration: 2.5,
                       start: 1, deadline: 30, trim: .exact, thumbnail: true,
                       thumbnailRequest: ThumbnailRequest(size: 200, clip: try ClippingRect(parsing: "0,0.25,1,0.5"), frame: 3, time: 1.5, quality: 65),
                       keepMetadata: true, qualityFloor: 40, verifySeconds: 12, verify: .full)
    }

    /// The keys with a field in ``PrepareOptions`` (or its thumbnail request).
    static let fieldKeys = OptionTable.specs.filter { $0.field.prepareBinding != nil }.map(\.key)

    static func decode(_ pairs: [(String, JSONValue)]) throws(OptionsError) -> PrepareOptions {
        try OptionsDecoder(JSONOptions(pairs + [("out", .string("/o"))])).prepareOptions(defaultProfile: .standard)
    }

    /// Records the keys a decoder asks for; gives none.
    final class KeyRecorder: OptionSource, @unchecked Sendable {
        private let lock = NSLock()
        private var asked: [String] = []
        var keys: [String] { [] }
        var askedKeys: Set<String> { lock.withLock { Set(asked) } }
        func value(_ key: String) -> OptionValue? {
            lock.withLock { asked.append(key) }
            return nil
        }
    }

    @Test("every key the decoder reads is declared in the table")
    func decoderKeys() throws {
        let recorder = KeyRecorder()
        let decoder = OptionsDecoder(recorder)
        _ = try decoder.prepareOptions(defaultProfile: .standard, defaultOutputFolder: "/o")
        _ = try decoder.thumbnailRequest()
        let declared = Set(OptionTable.specs.map(\.key))
        #expect(!recorder.askedKeys.isEmpty)
        #expect(recorder.askedKeys.subtracting(declared).isEmpty, "read but not declared: \(recorder.askedKeys.subtracting(declared))")
        #expect(Set(Self.fieldKeys).isSubset(of: recorder.askedKeys), "declared but never read: \(Set(Self.fieldKeys).subtracting(recorder.askedKeys))")
    }

    @Test("one entry per key; within a command, one option per flag")
    func unique() {
        let keys = OptionTable.specs.map(\.key)
        #expect(Set(keys).count == keys.count, "\(keys)")
        for verb in OptionVerb.allCases {
            let flags = OptionTable.specs(for: verb).map { $0.flag(for: verb) }
            #expect(Set(flags).count == flags.count, "\(verb): \(flags)")
            #expect(flags.allSatisfy { !$0.hasPrefix("-") && !$0.contains("=") && !$0.isEmpty }, "\(flags)")
        }
    }

    @Test("serve's operations take the table's keys, and a worker takes every option a batch sends it")
    func operationKeys() {
        #expect(ServiceCall.optionKeys(.prepare) == OptionTable.keys(for: .prepare))
        #expect(ServiceCall.optionKeys(.thumbnail) == OptionTable.keys(for: .thumbnail))
        #expect(ServiceCall.optionKeys(.validate) == OptionTable.keys(for: .validate))
        #expect(OptionsDecoder.prepareKeys == OptionTable.keys(for: .prepare))
        // Every option a batch hands its workers; `report` is the batch's own (drawn when it ends).
        #expect(OptionTable.keys(for: .batch).subtracting(["report"]).isSubset(of: OptionTable.keys(for: .prepare)))
        #expect(Set(Self.fieldKeys).isSubset(of: OptionTable.keys(for: .prepare)), "a field no prepare request could set")
    }

    @Test("the request encoding of every option decodes back to equal options and an equal fingerprint")
    func roundTrip() throws {
        let options = try Self.everyOption()
        let request = options.requestOptions
        // Every field is away from its default, so every one is written (a new option belongs in everyOption)
        #expect(request.map(\.0) == Self.fieldKeys, "\(request.map(\.0))")
        #expect(!request.contains { $0.0 == "out" })
        let decoded = try Self.decode(request)
        #expect(JSONValue.object(decoded.requestOptions).serialized == JSONValue.object(request).serialized)
        #expect(decoded.fingerprint == options.fingerprint)
        #expect(decoded.outputFolder == "/o" && decoded.profile.name == "apple" && decoded.qualityFloor == 40)
        #expect(decoded.thumbnailRequest == options.thumbnailRequest)
        // And at the defaults nothing but the profile is written
        #expect(PrepareOptions(outputFolder: "/o").requestOptions.map(\.0) == ["profile"])
    }

    @Test("the fingerprint hashes exactly the options marked as changing the output")
    func fingerprintFollowsTheTable() throws {
        let request = try Self.everyOption().requestOptions
        let whole = try Self.decode(request).fingerprint
        for spec in OptionTable.specs where spec.field.prepareBinding != nil {
            let without = try Self.decode(request.filter { $0.0 != spec.key }).fingerprint
            #expect((without != whole) == spec.changesOutput, "\(spec.key)")
        }
        #expect(try OptionsDecoder(JSONOptions(request + [("out", .string("/elsewhere"))])).prepareOptions(defaultProfile: .standard).fingerprint == whole)
    }

    @Test("each command takes exactly the table's flags for it (as bash completion lists them)")
    func commandFlags() throws {
        let script = try TestEnvironment.runAttachKit(["completion", "bash"]).stdout
        var accepted: [String: Set<String>] = [:]
        for line in script.split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ")", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix(" options=\"") else { continue }
            let words = parts[1].dropFirst(" options=\"".count).prefix { $0 != "\"" }.split(separator: " ")
            accepted[String(parts[0])] = Set(words.map { String($0.dropFirst(2)) })
        }
        #expect(accepted.count >= 10, "\(script)")
        let tableFlags = Set(OptionTable.specs.flatMap { spec in OptionVerb.allCases.map { spec.flag(for: $0) } })
        for (command, words) in accepted {
            let verb = OptionVerb(rawValue: command)
            let wanted = Set(verb.map { verb in OptionTable.specs(for: verb).map { $0.flag(for: verb) } } ?? [])
            #expect(wanted.isSubset(of: words), "\(command) lacks \(wanted.subtracting(words))")
            #expect(words.intersection(tableFlags).isSubset(of: wanted),
                    "\(command) takes \(words.intersection(tableFlags).subtracting(wanted)) outside the table")
        }
        for verb in OptionVerb.allCases { #expect(accepted[verb.rawValue] != nil, "\(verb)") }
    }

    @Test("each command's usage text (and so the manual page) shows every option the table gives it, with its help",
          arguments: OptionVerb.allCases)
    func usageText(verb: OptionVerb) throws {
        let usage = try TestEnvironment.runAttachKit(["help", verb.rawValue]).stdout
        let words = Set(usage.split(whereSeparator: { " [],\n".contains($0) }).map(String.init))
        for spec in OptionTable.specs(for: verb) {
            #expect(words.contains("--" + spec.flag(for: verb)), "\(verb): --\(spec.flag(for: verb)) missing from\n\(usage)")
            // batch names the options it shares with prepare as prepare's
            let shown = verb != .batch || spec.flag(for: .batch) != spec.flag(for: .prepare) || spec.help(for: .batch) != spec.help(for: .prepare)
            for line in spec.help(for: verb).lines where shown {
                #expect(usage.contains(line), "\(verb): \"\(line)\" missing from\n\(usage)")
            }
        }
        if verb == .prepare {
            let floor = PrepareOptions(outputFolder: "/o").qualityFloor
            #expect(usage.contains("--quality-floor Q") && usage.contains("(default \(floor))"), "\(usage)")
            let manual = try TestEnvironment.runAttachKit(["man-page"]).stdout
            #expect(manual.contains("\\-\\-quality\\-floor Q"))
        }
    }

    @Test("an option refining a flag that is off (size without thumbnail) changes no output, so not the fingerprint")
    func refinementsOfAnUnsetFlag() {
        var options = PrepareOptions(outputFolder: "/o")
        let plain = options.fingerprint
        options.thumbnailRequest = ThumbnailRequest(size: 200, quality: 50)
        #expect(options.fingerprint == plain)
        options.thumbnail = true
        let thumbnails = options.fingerprint
        options.thumbnailRequest = ThumbnailRequest()
        #expect(options.fingerprint != thumbnails && options.fingerprint != plain)
    }

    /// The keys a doc lists between `start` and `end`: each backticked word (or, in braces, each
    /// comma-separated one), without a `=value` or a parenthesized remark.
    static func listedKeys(_ doc: String, from start: String, to end: String, backticked: Bool = true) throws -> Set<String> {
        let text = try String(contentsOf: TestEnvironment.repoRoot.appendingPathComponent("docs/" + doc), encoding: .utf8)
        let from = try #require(text.range(of: start), "\(doc): \(start) not found")
        let to = try #require(text.range(of: end, range: from.upperBound..<text.endIndex), "\(doc): \(end) not found")
        let list = text[from.upperBound..<to.lowerBound].replacing(/\([^)]*\)/, with: "")
        let words = backticked ? list.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                               : list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return Set(words.map { String($0.prefix { $0 != "=" }) })
    }

    @Test("the option lists of the docs (serve, the HTTP query, URL mode) are the table's")
    func docsListTheTable() throws {
        #expect(try Self.listedKeys("cli.md", from: "`prepare {", to: "}`", backticked: false) == OptionTable.keys(for: .prepare))
        #expect(try Self.listedKeys("cli.md", from: "`thumbnail {", to: "}`", backticked: false) == OptionTable.keys(for: .thumbnail))
        #expect(try Self.listedKeys("cli.md", from: "`validate {", to: "}`", backticked: false) == OptionTable.keys(for: .validate))
        #expect(try Self.listedKeys("http.md", from: "as `serve` names them", to: "; `validate`:")
                == OptionTable.keys(for: .prepare).subtracting(["out", "profile"]))
        let urlKeys = try Self.listedKeys("url-mode.md", from: "but `out`: ", to: ", read by")
        #expect(urlKeys == OptionTable.keys(for: .sign), "\(urlKeys.symmetricDifference(OptionTable.keys(for: .sign)))")
    }
}
