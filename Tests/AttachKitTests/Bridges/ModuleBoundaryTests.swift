import Foundation
import Testing

/// Only `Sources/AttachKit/Bridges/` talks to C libraries: every other file reaches libvips,
/// FFmpeg, libmicrohttpd, zlib and the Linux calls through the bridges' Swift types (libc through
/// `Bridges/System`: `FileDescriptor`, `FileNames`, `DirectoryStream`, `SystemProcess`...).
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
                // `import M`, `@_exported import M`, `@preconcurrency import M`, `import struct M.T`.
                let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
                guard let first = words.first, first == "import", words.count >= 2 else { return nil }
                return words.last!.split(separator: ".").first.map(String.init)
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

    /// The modules that bring libc's calls into a file: Glibc itself, and Foundation's modules,
    /// which re-export it (a file importing Foundation can call `open` and `errno` unseen).
    static let libcModules: Set<String> = ["Glibc", "SwiftGlibc", "Musl", "Darwin", "Foundation", "FoundationEssentials",
                                           "FoundationInternationalization", "FoundationNetworking", "CoreFoundation"]

    /// The files outside `Bridges/` that may import libc, each with why `Bridges/System` does not
    /// serve it. At most a dozen; a file is added here only with its reason.
    static let libcAllowed: [String: String] = [
        "AttachKit/Workers/WorkerProcess.swift":
            "posix_spawn with its file actions and signal attributes, waitpid/waitid on the worker, send(MSG_NOSIGNAL) and shutdown on its socket",
        "AttachKit/Support/Locked.swift":
            "pthread_mutex_t, the lock every layer (Bridges/System included) is built on",
        "AttachKit/Support/NativeThread.swift":
            "pthread_create with a chosen stack size and detached (the drain and spawner threads)",
    ]

    @Test("outside Bridges/, only the allowlisted files import Glibc (or Foundation, which re-exports it), each with its reason")
    func libcStaysInBridges() throws {
        #expect(Self.libcAllowed.count <= 12, "at most a dozen files outside Bridges/ may import libc")
        let imports = try Self.imports()
        let outside = imports.filter { !$0.file.hasPrefix("AttachKit/Bridges/") && !$0.file.hasPrefix("C") }
        #expect(outside.contains { $0.file.hasPrefix("attachkit/") }, "the CLI's files were not found")
        for (file, imported) in outside where Self.libcAllowed[file] == nil {
            #expect(imported.isDisjoint(with: Self.libcModules),
                    "\(file) imports \(imported.intersection(Self.libcModules).sorted()): reach libc through Bridges/System, or add the file to libcAllowed with its reason")
        }
        // The list stays true: every file on it exists and still needs libc.
        for (file, reason) in Self.libcAllowed {
            #expect(!reason.isEmpty)
            let modules = imports.first { $0.file == file }?.modules
            #expect(modules != nil, "\(file) is on the allowlist but does not exist")
            #expect(modules.map { !$0.isDisjoint(with: Self.libcModules) } ?? true, "\(file) no longer imports libc: take it off the allowlist")
        }
    }
}
