import Foundation
import Testing
@testable import AttachKit
#if canImport(Glibc)
import Glibc
#endif

/// A worker process never outlives the `batch`, `serve` or `http` that started it
/// (``WorkerLifeline``), and while it lives it holds the batch's locks, so a restarted batch never
/// writes beside it.
@Suite("Worker processes die with their parent", .serialized)
struct WorkersDieWithParentTests {
    /// The children of `pid`, whichever of its threads started them (`/proc/PID/task/*/children`).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// Whether `pid` still runs: it exists and is not a zombie waiting for a reaper.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    /// Waits up to `seconds` for `condition`; whether it held.
    static func wait(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// Starts `attachkit ARGUMENTS` with every worker hanging on requests that name `hang`.
    static func start(_ arguments: [String], stdin: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["ATTACHKIT_WORKER_FAULT": "hang:hang"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let stdin { process.standardInput = stdin }
        try process.run()
        return process
    }

    /// Kills `parent` with SIGKILL once it has `count` workers, and says how long its workers lived on.
    static func killAndWatch(_ parent: Process, workers count: Int) throws -> (workers: [Int32], outlived: Double) {
        #expect(wait(30) { children(of: parent.processIdentifier).count >= count }, "the workers did not start")
        Thread.sleep(forTimeInterval: 0.5)
        let workers = children(of: parent.processIdentifier)
        kill(parent.processIdentifier, SIGKILL)
        parent.waitUntilExit()
        let killed = Date()
        _ = wait(5) { workers.allSatisfy { !isRunning($0) } }
        return (workers, Date().timeIntervalSince(killed))
    }

    @Test("SIGKILL of a batch whose worker is busy: no worker outlives it by a second; they held its locks; a rerun at once finishes the work")
    func batchKilled() throws {
        // Given a batch whose worker hangs on one file
        let root = TestEnvironment.temporaryFolder("die-batch")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_palette_400x300.png"), toPath: input.appendingPathComponent("hang.png").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: input.appendingPathComponent("b.gif").path)
        let out = root.appendingPathComponent("out")
        let batch = try Self.start(["batch", input.path, "--out", out.path, "--jobs", "2"])
        #expect(Self.wait(30) { Self.children(of: batch.processIdentifier).count == 2 })
        // The workers hold the manifest's lock and the split lock as their descriptors 3 and 4
        // (once started: a child seen between its fork and its exec still has the parent's).
        let locks = [out.appendingPathComponent("manifest.jsonl.lock").path, out.appendingPathComponent(".attachkit-batch.lock").path]
        func held(_ worker: Int32) -> [String] {
            [3, 4].map { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\($0)")) ?? "" }
        }
        _ = Self.wait(10) { Self.children(of: batch.processIdentifier).allSatisfy { held($0) == locks } }
        for worker in Self.children(of: batch.processIdentifier) {
            #expect(held(worker) == locks, "\(held(worker))")
        }

        // When the batch is killed
        let (workers, outlived) = try Self.killAndWatch(batch, workers: 2)

        // Then its workers are gone within a second
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { !Self.isRunning($0) } && outlived < 1, "workers lived \(outlived) s after their batch")
        // And a batch started at once (workers that no longer hang) finishes every file
        var environment = ProcessInfo.processInfo.environment
        environment["ATTACHKIT_WORKER_FAULT"] = nil
        let rerun = try TestEnvironment.run(TestEnvironment.attachkit, ["batch", input.path, "--out", out.path, "--jobs", "2"], environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        try BatchProcessTests.checkConsistent(input: input, out: out)
    }

    @Test("SIGKILL of serve while a worker is busy: no worker outlives it by a second")
    func serveKilled() throws {
        let root = TestEnvironment.temporaryFolder("die-serve")
        let file = root.appendingPathComponent("hang.png").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_palette_400x300.png"), toPath: file)
        let stdin = Pipe()
        let server = try Self.start(["serve", "--allow", root.path, "--jobs", "2"], stdin: stdin)
        stdin.fileHandleForWriting.write(Data(#"{"id": 1, "op": "probe", "path": "\#(file)"}"#.utf8 + [0x0A]))
        let (workers, outlived) = try Self.killAndWatch(server, workers: 2)
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { !Self.isRunning($0) } && outlived < 1, "workers lived \(outlived) s after serve")
    }

    @Test("SIGKILL of http while a worker is busy with a job: no worker outlives it by a second", .needsCurl)
    func httpKilled() throws {
        let server = try HTTPServerProcess(["--jobs", "2"], fault: "hang:hang")
        let file = server.root.appendingPathComponent("hang.png").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_palette_400x300.png"), toPath: file)
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = ["curl", "-s", "-o", "/dev/null", "--max-time", "20", "--data-binary", #"{"op": "probe", "path": "\#(file)"}"#, server.url + "/v1/jobs"]
        try client.run()
        Thread.sleep(forTimeInterval: 0.5)
        let (workers, outlived) = try Self.killAndWatch(server.process, workers: 2)
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { !Self.isRunning($0) } && outlived < 1, "workers lived \(outlived) s after http")
        client.waitUntilExit()
    }

    @Test("a worker whose parent is not the one named exits at once")
    func orphanedAtBirth() throws {
        let folder = TestEnvironment.temporaryFolder("die-orphan")
        let started = Date()
        let result = try TestEnvironment.runAttachKit(["worker", "--allow", folder.path, "--parent", "1"])
        #expect(result.status == 70 && result.stdout.isEmpty, "\(result)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("a new run waits for the workers of a dead run that still hold the lock, and refuses a live holder at once", .enabled(if: TestEnvironment.hasTool("flock"), "needs flock (util-linux)"))
    func lockWaitsForSurvivors() throws {
        // Given a lock naming a dead run, held for 1.5 s by another process (as its workers would)
        let folder = TestEnvironment.temporaryFolder("die-lock")
        let manifest = folder.appendingPathComponent("manifest.jsonl").path
        try Data("2147483646\n".utf8).write(to: URL(fileURLWithPath: manifest + ".lock"))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["flock", manifest + ".lock", "sleep", "1.5"]
        try holder.run()
        Thread.sleep(forTimeInterval: 0.3)

        // When a run takes it, Then it waits for the holder and gets it
        let started = Date()
        let lock = try BatchLock(manifestPath: manifest)
        #expect(Date().timeIntervalSince(started) > 0.8)
        holder.waitUntilExit()
        _ = consume lock

        // And a lock naming a live process is refused at once
        try Data("\(getppid())\n".utf8).write(to: URL(fileURLWithPath: manifest + ".lock"))
        let live = Process()
        live.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        live.arguments = ["flock", manifest + ".lock", "sleep", "1.5"]
        try live.run()
        Thread.sleep(forTimeInterval: 0.3)
        let refused = Date()
        #expect(throws: BatchError.self) { _ = try BatchLock(manifestPath: manifest) }
        #expect(Date().timeIntervalSince(refused) < 1)
        live.waitUntilExit()
    }

    @Test("worker processes leave no private temporary folder after a batch or a serve ends")
    func temporaryFoldersRemoved() throws {
        // Given a TMPDIR of its own, holding a folder of a process that is gone
        let root = TestEnvironment.temporaryFolder("die-tmp")
        let temporary = try root.appendingPathComponent("tmp", isDirectory: true).creatingFolder()
        try root.appendingPathComponent("tmp/attachkit-2147483646-AbCdEf", isDirectory: true).creatingFolder()
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: input.appendingPathComponent("a.gif").path)
        let environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }

        // When a batch and a serve run there and end
        let batch = try TestEnvironment.run(TestEnvironment.attachkit, ["batch", input.path, "--out", root.appendingPathComponent("out").path, "--jobs", "2"],
                                            environment: environment)
        #expect(batch.status == 0, "\(batch.stderr)")
        let serve = try TestEnvironment.run(TestEnvironment.attachkit, ["serve", "--allow", input.path, "--jobs", "2"],
                                            stdin: Data(#"{"id": 1, "op": "probe", "path": "\#(input.path)/a.gif"}"#.utf8 + [0x0A]), environment: environment)
        #expect(serve.status == 0, "\(serve.stderr)")

        // Then nothing of theirs, nor the dead process's folder, is left
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }
}
