import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One run of one command: whole-process wall time, CPU time and peak RSS from `wait4(2)`.
struct Sample {
    let wall: Double
    let user: Double
    let system: Double
    /// Peak resident set size, kilobytes (`ru_maxrss`).
    let peakKB: Int
    let status: Int32
    /// The last lines the command printed (stdout and stderr) when it exited non-zero.
    var failure: String? = nil

    var cpu: Double { user + system }
}

enum Measure {
    /// Runs `command` (argv[0] looked up on PATH unless it contains a `/`) with stdout/stderr sent
    /// to a scratch log, and measures it. A failing run keeps the log's tail in ``Sample/failure``.
    static func run(_ command: [String], environment: [String: String] = [:]) -> Sample {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let logPath = NSTemporaryDirectory() + "/attachkit-bench-run-\(getpid()).log"
        defer { unlink(logPath) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned: Int32 = withCStrings(command) { argv in
            withCStrings(envStrings) { envp in
                posix_spawnp(&pid, command[0], &actions, nil, argv, envp)
            }
        }
        guard spawned == 0 else { return Sample(wall: 0, user: 0, system: 0, peakKB: 0, status: -1) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let seconds: (timeval) -> Double = { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        var failure: String? = nil
        if exit != 0 {
            let lines = ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n")
            failure = "exit \(exit): " + lines.suffix(3).joined(separator: " / ")
        }
        return Sample(wall: wall, user: seconds(usage.ru_utime), system: seconds(usage.ru_stime),
                      peakKB: Int(usage.ru_maxrss), status: exit, failure: failure)
    }

    /// Runs a command and returns its stdout (for tools whose output the harness reads).
    static func output(_ command: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs a command and returns stdout and stderr together (ffmpeg reports SSIM on stderr).
    static func outputWithStderr(_ command: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func hasTool(_ name: String) -> Bool {
        !output(["sh", "-c", "command -v \(name)"]).isEmpty
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// Median and spread of repeated samples.
struct Stats {
    let samples: [Sample]

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var wall: Double { Self.median(samples.map(\.wall)) }
    var cpu: Double { Self.median(samples.map(\.cpu)) }
    var peakMB: Double { Self.median(samples.map { Double($0.peakKB) / 1024 }) }
    var wallMin: Double { samples.map(\.wall).min() ?? 0 }
    var wallMax: Double { samples.map(\.wall).max() ?? 0 }
    var failed: Bool { samples.contains { $0.status != 0 } }
    /// What the first failing sample printed last.
    var failure: String? { samples.lazy.compactMap(\.failure).first }
}
