import Foundation
import Testing

/// Only `Sources/AttachKit/Bridges/` talks to C libraries: every other file reaches libvips,
/// FFmpeg, libmicrohttpd, zlib and the Linux calls through the bridges' Swift types.
@Suite("Module boundaries")
struct ModuleBoundaryTests {
    static let sources = TestEnvironment.repoRoot.appendingPathComponent("Sources")

    /// The package's C modules: every `Sources/C*` target.
    static func cModules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasPrefix("C") }.sorted()
    }

    /// Every Swift file under `Sources/` with the modules it imports.
    static func imports() throws -> [(file: String, modules: Set<String>)] {
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        var found: [(String, Set<String>)] = []
        for case let file as String in walker where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let modules = text.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard words.count >= 2, words[0] == "import" || (words[0] == "@_exported" && words[1] == "import") else { return nil }
                return String(words.last!)
            }
            found.append((file, Set(modules)))
        }
        return found
    }

    @Test("no file outside Bridges/ imports a C module")
    func cModulesStayInBridges() throws {
        let modules = Set(try Self.cModules())
        #expect(modules.contains("CFFmpeg") && modules.contains("CVips"), "the C targets were not found: \(modules)")
        let outside = try Self.imports().filter { !$0.file.hasPrefix("AttachKit/Bridges/") && !$0.file.hasPrefix("C") }
        #expect(!outside.isEmpty)
        for (file, imported) in outside {
            #expect(imported.isDisjoint(with: modules), "\(file) imports \(imported.intersection(modules).sorted())")
        }
    }
}
