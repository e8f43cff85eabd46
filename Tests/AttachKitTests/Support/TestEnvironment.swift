import Foundation
import Testing
@testable import AttachKit

/// Where the test inputs live and how to run the reference tools (`ffprobe`, `vipsheader`).
enum TestEnvironment {
    /// The package root (two levels above this file's folder).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `TestMedia/` in the repository.
    static let testMedia = repoRoot.appendingPathComponent("TestMedia")

    /// The shared real-world corpus: `$ATTACHKIT_CORPUS`, else `../shared/corpus` beside the
    /// checkout; `nil` when neither exists (corpus tests are then skipped, and say so).
    static let corpus: URL? = {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["ATTACHKIT_CORPUS"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        candidates.append(repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("manifest.tsv").path) }
    }()

    /// Other projects' test files (`../shared/peers` beside the checkout, or beside the corpus);
    /// `nil` when absent: tests that also read them then read only the rest.
    static let peers: URL? = {
        let beside = [corpus?.deletingLastPathComponent(), repoRoot.deletingLastPathComponent().appendingPathComponent("shared")]
        return beside.compactMap { $0?.appendingPathComponent("peers") }.first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    /// Why a test that needs the corpus is skipped without it (printed by the run).
    static let corpusAbsent: Comment = "needs the shared corpus: ../shared/corpus beside the checkout, or $ATTACHKIT_CORPUS"

    /// A fresh, empty temporary folder for one test.
    /// Lies under ``temporaryRoot``, so it goes when the test process ends even when the test
    /// does not remove it.
    static func temporaryFolder(_ name: String = #function) -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = temporaryRoot.appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The folder every ``temporaryFolder(_:)`` of this test process lies in:
    /// `$TMPDIR/attachkit-tests-PID-XXXXXXXX`, removed with all it holds when the process exits
    /// (`atexit`). Made on first use, which also removes the roots of test processes that are
    /// gone (killed or crashed before their exit handler ran). Without it every run left its
    /// folders behind, gigabytes after a few hundred runs.
    static let temporaryRoot: URL = {
        let base = FileManager.default.temporaryDirectory
        let prefix = "attachkit-tests-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(prefix) {
            let fields = name.dropFirst(prefix.count).split(separator: "-")
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
        let root = base.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        temporaryRootOwner = (root.path, getpid())
        atexit {
            // Only by the process that made it (a forked child inherits the handler).
            if let owner = TestEnvironment.temporaryRootOwner, owner.pid == getpid() { try? FileManager.default.removeItem(atPath: owner.path) }
        }
        return root
    }()

    /// ``temporaryRoot``'s path and maker for the exit handler, which can capture nothing.
    nonisolated(unsafe) private static var temporaryRootOwner: (path: String, pid: Int32)?

    /// Runs an executable found on `PATH`, returning its exit status and captured output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil,
                    environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty tool cannot fill one and block.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Whether a tool is on `PATH`.
    static func hasTool(_ tool: String) -> Bool {
        (try? run("sh", ["-c", "command -v \(tool)"]))?.status == 0
    }
}

extension Trait where Self == ConditionTrait {
    /// The one way a test that needs something optional says so: `.enabled(if:_:)` with the reason,
    /// which the run prints when it skips the test. This one is for the shared corpus: with it the
    /// test uses `TestEnvironment.corpus!`.
    static var needsCorpus: Self { .enabled(if: TestEnvironment.corpus != nil, TestEnvironment.corpusAbsent) }
}

/// One row of `../shared/corpus/manifest.tsv` (conventions in the corpus' SOURCES.md).
struct CorpusRow: Sendable, CustomStringConvertible {
    let file: String
    let kind: String
    let container: String
    let codec: String
    let width: Int?
    let height: Int?
    let duration: Double?
    let frames: Int?
    /// `valid` or `malformed`; TestMedia also has `refused` (well formed, but encrypted or in a codec
    /// the decoders here lack) and `capped` (over a safety cap as a whole, prepared only by a trim).
    let expected: String
    let note: String
    /// The folder `file` is relative to.
    var root: URL? = TestEnvironment.corpus

    var isValid: Bool { expected == "valid" }
    var description: String { file }

    /// Every row of the manifest, or `[]` when the corpus is absent.
    static func all() -> [CorpusRow] {
        guard let corpus = TestEnvironment.corpus,
              let text = try? String(contentsOf: corpus.appendingPathComponent("manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 10 else { return nil }
            return CorpusRow(file: f[0], kind: f[1], container: f[2], codec: f[3], width: Int(f[4]), height: Int(f[5]),
                             duration: Double(f[6]), frames: Int(f[7]), expected: f[8], note: f[9])
        }
    }

    var path: String { root!.appendingPathComponent(file).path }
}

/// Access for tests: a ledger whose scope is `folder`, checked clean by the caller at the end.
extension AccessLedger {
    static func forTests(_ folders: [URL]) throws -> AccessLedger {
        AccessLedger(scopes: try folders.map { try AccessScope.folder($0.path) })
    }
}

/// Probing and validating through access handles, as the CLI does, checking the ledger after.
enum Through {
    static func probe(_ path: String, scope: URL) throws -> MediaInfo {
        let ledger = try AccessLedger.forTests([scope])
        let result = ledger.withAccess(path, refused: { .failure(.access($0)) }) { handle in
            Result { () throws(ProbeError) in try Prober().probe(handle) }
        }
        precondition(ledger.report.isClean, "access ledger not clean: \(ledger.report.problems)")
        return try result.get()
    }

    static func validate(_ path: String, scope: URL, profile: Profile, deep: Bool = false) throws -> ValidationReport {
        let ledger = try AccessLedger.forTests([scope])
        let result = ledger.withAccess(path, refused: { Result<ValidationReport, AccessError>.failure($0) }) {
            .success(Validator(profile: profile, deep: deep).validate($0))
        }
        precondition(ledger.report.isClean, "access ledger not clean: \(ledger.report.problems)")
        return try result.get()
    }
}

extension CorpusRow {
    /// Every row of `TestMedia/fixtures.tsv` (same columns and conventions as the corpus manifest).
    static func fixtures() -> [CorpusRow] {
        guard let text = try? String(contentsOf: TestEnvironment.testMedia.appendingPathComponent("fixtures.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 10 else { return nil }
            return CorpusRow(file: f[0], kind: f[1], container: f[2], codec: f[3], width: Int(f[4]), height: Int(f[5]),
                             duration: Double(f[6]), frames: Int(f[7]), expected: f[8], note: f[9], root: TestEnvironment.testMedia)
        }
    }
}

extension TestEnvironment {
    /// A file in TestMedia by its path relative to TestMedia/.
    static func fixture(_ relative: String) -> String { testMedia.appendingPathComponent(relative).path }

    /// The `attachkit` executable built beside the test bundle.
    static let attachkit: String = {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundleFolder, bundleFolder.deletingLastPathComponent(), repoRoot.appendingPathComponent(".build/debug")]
        return candidates.map { $0.appendingPathComponent("attachkit").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "attachkit"
    }()

    /// Runs the built `attachkit` with `arguments`.
    static func runAttachKit(_ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(attachkit, arguments, stdin: stdin)
    }

    /// The error code of the first report `attachkit … --json` printed (`error.code`): `nil` when
    /// it succeeded, or printed no JSON.
    static func errorCode(_ stdout: String) -> String? {
        let line = stdout.split(separator: "\n").first.map(String.init) ?? ""
        return (try? JSONValue.parse(line))?["error"]?["code"]?.stringValue
    }
}
