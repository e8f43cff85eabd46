import Foundation
import Testing
@testable import AttachKit

/// The built `attachkit http` as a deployment runs it, on 127.0.0.1 with a port the kernel
/// chooses (read from the "listening on" line), its own spool and an allowed root holding a few
/// TestMedia files.
final class HTTPServerProcess: @unchecked Sendable {
    let process = Process()
    /// `http://127.0.0.1:PORT`.
    let url: String
    let host = "127.0.0.1"
    let port: Int
    let folder: URL
    let root: URL
    let spool: URL
    private let log: URL

    /// Files copied into ``root`` (by name).
    static let media = ["images/gif_static_320x240.gif", "images/jpeg_named_as.png", "images/png_palette_400x300.png",
                        "images/webp_alpha_320x240.webp", "malformed/jpeg_truncated_half.jpg", "malformed/json_named_as.webp",
                        "malformed/mp4_encrypted_cenc_160x120.mp4", "video/webm_vp9_opus_320x240_2s.webm"]

    /// - Parameters:
    ///   - port: the port to listen on (0: one the kernel chooses).
    ///   - sharing: another server whose folder, allowed root and spool this one uses too (two
    ///     instances on one host, or an instance restarted in place); its log is its own.
    init(_ arguments: [String] = [], fault: String? = nil, name: String = #function, port: Int = 0,
         sharing other: HTTPServerProcess? = nil) throws {
        folder = other?.folder ?? TestEnvironment.temporaryFolder("http-\(name)")
        root = folder.appendingPathComponent("root", isDirectory: true)
        spool = folder.appendingPathComponent("spool", isDirectory: true)
        log = folder.appendingPathComponent(other == nil ? "server.log" : "server-\(UUID().uuidString.prefix(8)).log")
        if other == nil {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for file in Self.media {
                try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file), toPath: root.appendingPathComponent(PathResolver.fileName(file)).path)
            }
        }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = ["http", "--listen", "127.0.0.1:\(port)", "--allow", root.path, "--spool", spool.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ATTACHKIT_WORKER_FAULT"] = fault
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let text = Self.firstLine(of: output)
        guard text.hasPrefix("listening on http://"), let port = Int(text.split(separator: ":").last ?? "") else {
            process.waitUntilExit()
            throw HTTPTestError("the server did not start: \(text.debugDescription); log: \(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self))")
        }
        self.url = String(text.dropFirst("listening on ".count))
        self.port = port
    }

    var pid: Int32 { process.processIdentifier }

    /// The first line a child writes to `pipe` (read byte by byte, so nothing after it is taken),
    /// trimmed; what came before the end when it closed first.
    static func firstLine(of pipe: Pipe) -> String {
        var line = Data()
        while line.last != UInt8(ascii: "\n") {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += byte
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A file in ``root``.
    func file(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// SIGTERM, then the exit status and the log.
    @discardableResult
    func stop() -> (status: Int32, log: String) {
        if process.isRunning { kill(pid, SIGTERM) }
        process.waitUntilExit()
        return (process.terminationStatus, logText)
    }

    var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

    /// Request folders left in the spool.
    var spoolLeftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []).filter { $0.hasPrefix("r-") }
    }

    /// Temporaries (`*.tmp`) left under the allowed root.
    var temporaries: [String] {
        ((FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".tmp") }
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

struct HTTPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Trait where Self == ConditionTrait {
    static var needsCurl: Self { .enabled(if: TestEnvironment.hasTool("curl"), "needs curl on PATH (apt install curl)") }
    static var needsPython: Self { .enabled(if: TestEnvironment.hasTool("python3"), "needs python3 on PATH (apt install python3)") }
}
