import Foundation
import Testing
@testable import AttachKit

/// Batch and serve run the media work in worker processes: a job that crashes its worker, or
/// breaks a memory, CPU or wall-clock limit, fails alone and everything else goes on. The
/// misbehaviour is injected with the worker's test hook (`ATTACHKIT_WORKER_FAULT=KIND:TEXT`),
/// because every real crash the hostile inputs found has been fixed.
@Suite("isolated worker processes", .serialized)
struct WorkerIsolationTests {
    /// A running `attachkit serve` fed request lines; answers collected by id.
    final class Serve: @unchecked Sendable {
        let process = Process()
        private let input = Pipe(), output = Pipe(), errors = Pipe()
        nonisolated(unsafe) private var answers = Data()
        nonisolated(unsafe) private var logData = Data()
        private let reading = DispatchGroup()

        init(root: String, arguments: [String] = [], fault: String? = nil) throws {
            process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
            process.arguments = ["serve", "--allow", root] + arguments
            var environment = ProcessInfo.processInfo.environment
            environment["ATTACHKIT_WORKER_FAULT"] = fault
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            reading.enter()
            DispatchQueue.global().async { [self] in
                answers = output.fileHandleForReading.readDataToEndOfFile()
                reading.leave()
            }
            reading.enter()
            DispatchQueue.global().async { [self] in
                logData = errors.fileHandleForReading.readDataToEndOfFile()
                reading.leave()
            }
        }

        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        /// Closes stdin, waits for the exit, returns the answers by id and the log.
        func finish() throws -> (status: Int32, answers: [Int: JSONValue], log: String) {
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            reading.wait()
            var byID: [Int: JSONValue] = [:]
            for line in String(decoding: answers, as: UTF8.self).split(separator: "\n") {
                let answer = try JSONValue.parse(String(line))
                if let id = answer["id"]?.intValue { byID[id] = answer }
            }
            return (process.terminationStatus, byID, String(decoding: logData, as: UTF8.self))
        }

        /// Process ids whose parent is the serve process (its workers).
        var workers: [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && Int32(fields[1]) == process.processIdentifier
            }
        }
    }

    static func media() throws -> URL {
        let root = TestEnvironment.temporaryFolder("workers")
        let media = try root.appendingPathComponent("media", isDirectory: true).creatingFolder()
        _ = try root.appendingPathComponent("out", isDirectory: true).creatingFolder()
        for file in ["images/png_rgb_opaque_400x300.png", "images/gif_static_320x240.gif", "audio/mp3_stereo_44k_5s.mp3"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file),
                                             toPath: media.appendingPathComponent(PathResolver.fileName(file)).path)
        }
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_rgb_opaque_400x300.png"),
                                         toPath: media.appendingPathComponent("poison.png").path)
        return root
    }

    static func prepare(_ id: Int, _ root: URL, _ name: String) -> String {
        #"{"id": \#(id), "op": "prepare", "path": "\#(root.path)/media/\#(name)", "options": {"out": "\#(root.path)/out"}}"#
    }

    static func temporaries(under root: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: root.path)
        return (walker?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".tmp") }
    }

    @Test("serve: a crash, a memory blow-up, a CPU spin and a hang each fail their own request only",
          arguments: [("crash", "crashed", "SIGSEGV", 60), ("memory", "over-memory", "memory limit", 60),
                      ("spin", "timed-out", "CPU", 60), ("hang", "timed-out", "wall-clock", 2)])
    func serveContainsFaults(fault: String, code: String, words: String, wallSeconds: Int) throws {
        let root = try Self.media()
        let serve = try Serve(root: root.path, arguments: ["--jobs", "2", "--worker-memory", "192MB", "--worker-cpu", "1",
                                                           "--worker-timeout", String(wallSeconds)], fault: "\(fault):poison")
        let names = ["png_rgb_opaque_400x300.png", "poison.png", "gif_static_320x240.gif", "mp3_stereo_44k_5s.mp3",
                     "poison.png", "png_rgb_opaque_400x300.png"]
        for (id, name) in names.enumerated() { serve.send(Self.prepare(id, root, name)) }
        let (status, answers, log) = try serve.finish()
        #expect(status == 0, "\(log)")
        #expect(answers.count == names.count, "every request answered: \(answers.keys.sorted())")
        for (id, name) in names.enumerated() {
            let answer = try #require(answers[id])
            if name == "poison.png" {
                #expect(answer["ok"] == .bool(false))
                #expect(answer["error"]?["code"]?.stringValue == code)
                #expect(answer["error"]?["message"]?.stringValue?.contains(words) == true, "\(answer.serialized)")
            } else {
                #expect(answer["ok"] == .bool(true), "\(answer.serialized)")
                #expect(answer["sandbox"]?.stringValue != nil, "answers say which sandbox the worker ran in")
            }
        }
        #expect(log.contains("workers replaced: 2"), "\(log)")
        #expect(Self.temporaries(under: root).isEmpty)
    }

    @Test("serve: a worker killed with SIGKILL mid-request fails that request as crashed; the next one is served")
    func workerKilledMidRequest() throws {
        let root = try Self.media()
        let serve = try Serve(root: root.path, arguments: ["--jobs", "1"], fault: "hang:poison")
        // A first request shows the worker is up and idle; then the poisoned one keeps it busy.
        serve.send(Self.prepare(0, root, "gif_static_320x240.gif"))
        let firstOutput = root.appendingPathComponent("out/gif_static_320x240.gif").path
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: firstOutput) { Thread.sleep(forTimeInterval: 0.05) }
        serve.send(Self.prepare(1, root, "poison.png"))
        Thread.sleep(forTimeInterval: 0.5)
        let victims = serve.workers
        #expect(victims.count == 1)
        for pid in victims { kill(pid, SIGKILL) }
        serve.send(Self.prepare(2, root, "png_rgb_opaque_400x300.png"))
        let (status, answers, log) = try serve.finish()
        #expect(status == 0, "\(log)")
        #expect(answers[1]?["error"]?["code"]?.stringValue == "crashed")
        #expect(answers[1]?["error"]?["message"]?.stringValue?.contains("SIGKILL") == true)
        #expect(answers[0]?["ok"] == .bool(true))
        #expect(answers[2]?["ok"] == .bool(true))
    }

    @Test("batch: a file that kills its worker is recorded as crashed, every other file is prepared, a rerun skips it")
    func batchGoesOn() throws {
        let root = try Self.media()
        let out = root.appendingPathComponent("out").path
        var environment = ProcessInfo.processInfo.environment
        environment["ATTACHKIT_WORKER_FAULT"] = "crash:poison"
        let first = try TestEnvironment.run(TestEnvironment.attachkit,
                                                   ["batch", root.appendingPathComponent("media").path, "--out", out, "--jobs", "2"],
                                                   environment: environment)
        #expect(first.status == 1, "\(first.stderr)")
        let manifest = try String(contentsOfFile: out + "/manifest.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(manifest.count == 4)
        for line in manifest {
            if line["path"]?.stringValue == "poison.png" {
                #expect(line["error"]?["code"]?.stringValue == "crashed")
                #expect(line["sandbox"]?.stringValue != nil, "a crash record says which sandbox the worker ran in")
            } else {
                #expect(line["ok"] == .bool(true), "\(line.serialized)")
                #expect(line["sandbox"]?.stringValue != nil)
            }
        }
        #expect(Self.temporaries(under: root).isEmpty)
        let second = try TestEnvironment.run(TestEnvironment.attachkit,
                                                    ["batch", root.appendingPathComponent("media").path, "--out", out, "--jobs", "2"],
                                                    environment: environment)
        #expect(second.stdout.contains("4 already done"), "\(second.stdout)")
    }
}
