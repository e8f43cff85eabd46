import Foundation
import Testing
@testable import AttachKit

/// File names are escaped where the CLI renders them for people (tables, progress lines,
/// messages): a newline, a terminal escape or a bidi override in a name cannot add a line or
/// disguise another name. JSON output keeps the name exactly.
@Suite("Names shown to people are escaped; one line per file")
struct HumanOutputEscapingTests {
    /// Names with a newline, an ESC sequence, a right-to-left override, a tab, the line and
    /// paragraph separators (which terminals and editors break lines at) and a zero-width space.
    static let names = ["new\nline.gif", "esc\u{1B}[31mred.gif", "evil\u{202E}fig.gif", "tab\there.gif",
                        "one\u{2028}two.gif", "para\u{2029}graph.gif", "zero\u{200B}width.gif"]
    static let shown = ["new\\nline.gif", "esc\\u{1B}[31mred.gif", "evil\\u{202E}fig.gif", "tab\\there.gif",
                        "one\\u{2028}two.gif", "para\\u{2029}graph.gif", "zero\\u{200B}width.gif"]

    static func folder(_ name: String = #function) throws -> URL {
        let folder = TestEnvironment.temporaryFolder(name)
        let input = folder.appendingPathComponent("in", isDirectory: true)
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for file in names {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: input.appendingPathComponent(file).path)
        }
        return input
    }

    /// The output has none of the raw characters, and each name's escaped form on exactly one line.
    static func check(_ output: String, _ verb: String) {
        for character in ["\u{1B}", "\u{202E}", "\t", "\u{2028}", "\u{2029}", "\u{200B}"] { #expect(!output.contains(character), "\(verb): a raw \(character.debugDescription) was printed") }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        for shown in shown {
            #expect(lines.filter { $0.contains(shown) }.count == 1, "\(verb): \(shown) is not on exactly one line:\n\(output)")
        }
        #expect(!lines.contains { $0.hasPrefix("line.gif") }, "\(verb): a name's newline started a line")
    }

    @Test("probe, validate and prepare tables: one row per file, names escaped; --json keeps the names exactly")
    func tables() throws {
        let input = try Self.folder()
        for verb in [["probe"], ["validate"], ["prepare", "--out", input.deletingLastPathComponent().appendingPathComponent("out").path]] {
            let result = try TestEnvironment.runAttachKit(verb + [input.path])
            #expect(result.status == 0, "\(verb[0]): \(result.stderr)")
            Self.check(result.stdout, verb[0])
        }
        let json = try TestEnvironment.runAttachKit(["probe", "--json", input.path])
        let paths = try json.stdout.split(separator: "\n").map { try JSONValue.parse(String($0))["path"]?.stringValue ?? "" }
        #expect(Set(paths.map { ExactPath(PathResolver.fileName($0)) }) == Set(Self.names.map(ExactPath.init)))
    }

    @Test("batch: one progress line per file, and the summary table, with names escaped")
    func batch() throws {
        let input = try Self.folder()
        let out = input.deletingLastPathComponent().appendingPathComponent("out").path
        // A file that fails, so its name is also in the summary's table of failures.
        try Data("not media".utf8).write(to: input.appendingPathComponent("bad\n\u{202E}.gif"))
        let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out, "--jobs", "2"])
        #expect(result.status == 1, "\(result.stderr)")
        Self.check(result.stderr, "batch progress")
        let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(progress.count == Self.names.count + 1, "\(progress)")
        #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("bad\\n\\u{202E}.gif") && $0.contains("unrecognized-type") }, "\(result.stdout)")
    }

    @Test("thumbnail's messages escape the names they quote")
    func thumbnailMessage() throws {
        let input = try Self.folder()
        let out = input.appendingPathComponent("poster\n\u{202E}.jpg").path
        let result = try TestEnvironment.runAttachKit(["thumbnail", input.appendingPathComponent(Self.names[0]).path, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").first?.contains("poster\\n\\u{202E}.jpg") == true, "\(result.stdout)")
        #expect(!result.stdout.contains("\u{202E}"))
    }
}
