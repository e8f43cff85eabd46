import AttachKit
import Dispatch

/// `attachkit worker` (internal, not listed): one process of the pool `batch` and `serve` start
/// (see `WorkerProcessPool`). It confines itself (Landlock: read-only beneath `--read-only`,
/// read-write beneath `--allow`), sets its limits, says hello, then answers one JSON request line
/// with one answer line, one at a time, until its input ends.
struct WorkerCommand: Command {
    static let name = "worker"
    static let summary = "(internal) one isolated worker process of batch and serve"
    static let usage = """
        usage: attachkit worker --allow DIR... [--read-only DIR...] [--threads N] [--profile-json JSON]
                                [--cpu-seconds S] [--address-space BYTES] [--parent PID]

        Started by `attachkit batch` and `attachkit serve`, not by people. Speaks the serve protocol
        on stdin/stdout, one request at a time, after a hello line {"worker": "ready", ...}. A prepare
        whose options hold "progress": true (only a parent may send it) is answered after lines
        {"progress": F, "id": ID}, F the share of the output encoded (audio and video; a few a second).
          --allow DIR         a root to read and write (repeatable)
          --read-only DIR     a root to read only (repeatable)
          --threads N         codec threads per job (default 1)
          --profile-json J    the default profile, as a JSON policy (default ios)
          --cpu-seconds S     CPU time one request may use; SIGXCPU past it (default 600)
          --address-space B   RLIMIT_AS of the process (default 4 GiB)
          --parent PID        the pool's process: the worker is killed when it ends (PR_SET_PDEATHSIG),
                              and exits at once if it has already ended
        """
    static let options: Set<String> = ["allow", "read-only", "threads", "profile-json", "cpu-seconds", "address-space", "parent"]
    static let flags: Set<String> = []

    let readWrite: [String]
    let readOnly: [String]
    let threads: Int
    let profile: Profile
    let cpuSeconds: Int
    let addressSpace: Int64

    init(_ arguments: Arguments) throws(UsageError) {
        // First of all: die with the pool's process, and not outlive it if it is gone already.
        if let parent = try arguments.int("parent", in: 1...Int(Int32.max)) { WorkerLifeline.bind(toParent: Int32(parent)) }
        readWrite = arguments.all("allow")
        readOnly = arguments.all("read-only")
        guard !(readWrite + readOnly).isEmpty else { throw UsageError("give at least one --allow or --read-only DIR") }
        threads = try arguments.int("threads", in: 1...256) ?? 1
        cpuSeconds = try arguments.int("cpu-seconds", in: 1...86_400) ?? 600
        addressSpace = Int64(try arguments.int("address-space", in: (64 << 20)...Int.max) ?? (4 << 30))
        if let text = arguments.value("profile-json") {
            do {
                profile = try Profile.parse(try JSONValue.parse(text), source: "--profile-json")
            } catch {
                throw UsageError("--profile-json: \(error)")
            }
        } else {
            profile = .standard
        }
    }

    func run() -> ExitCode {
        // The speed calibration lives in the user's cache, outside what the sandbox lets a worker read.
        SpeedModel.shared.prefetch()
        // Before anything reads an input or starts libvips: threads made later inherit the sandbox.
        let sandbox = Sandbox.confine(readOnly: readOnly, readWrite: readWrite)
        SystemProcess.setLimit(.coreFileBytes, soft: 0, hard: 0)
        SystemProcess.setLimit(.addressSpaceBytes, soft: UInt64(addressSpace), hard: UInt64(addressSpace))
        let service: AttachKitService
        do {
            service = try AttachKitService(workerAllow: readWrite + readOnly, profile: profile, threadsPerJob: threads,
                                           sandbox: sandbox.name)
        } catch {
            Output.error("attachkit worker: \(error)")
            return .failure
        }
        var hello: [(String, JSONValue)] = [("worker", .string("ready")), ("pid", .number(Double(SystemProcess.id))),
                                            ("sandbox", .string(sandbox.name))]
        if case .none(let reason) = sandbox { hello.append(("sandboxReason", .string(reason))) }
        Output.json(JSONValue.object(hello).serialized)
        var reader = LineReader(fd: SystemProcess.standardInput, maxBytes: ServiceRequest.maxWorkerLineBytes)
        while let line = reader.next() {
            let text: String
            switch line {
            case .tooLong(let bytes):
                Output.json(RequestRejection.tooLong(bytes: bytes, limit: ServiceRequest.maxWorkerLineBytes).response)
                continue
            case .text(let line):
                text = line
            }
            armCPULimit()
            FaultInjection.apply(to: text)
            Output.json(Blocking.wait { await service.respond(to: text, progressLines: { Output.json($0) }) })
            // Hand freed memory back to the kernel, so what one file needed is not resident
            // (and counted against the memory limit) while the next one runs.
            WorkerHousekeeping.releaseFreedMemory()
        }
        return .success
    }

    /// Allows this request `cpuSeconds` of CPU on top of what the process has used so far.
    private func armCPULimit() {
        let used = SystemProcess.cpuSecondsUsed + 1
        SystemProcess.setLimit(.cpuSeconds, soft: UInt64(used + cpuSeconds), hard: SystemProcess.unlimited)
    }
}

/// Test hook: `ATTACHKIT_WORKER_FAULT=KIND:TEXT` makes a worker misbehave on every request whose
/// line contains TEXT, so the tests can show that batch and serve contain what real decoder bugs
/// do (every real crash the hostile corpus found has been fixed). KIND is `crash` (SIGSEGV),
/// `memory` (allocates without end), `spin` (burns CPU), `hang` (sleeps) or `slow` (sleeps 3 s,
/// then does the work). Unset in production.
enum FaultInjection {
    private static let fault: (kind: Substring, text: Substring)? = {
        guard let value = SystemProcess.environment("ATTACHKIT_WORKER_FAULT"),
              let colon = value.firstIndex(of: ":") else { return nil }
        return (value[..<colon], value[value.index(after: colon)...])
    }()

    static func apply(to request: String) {
        guard let fault, !fault.text.isEmpty, request.contains(fault.text) else { return }
        switch fault.kind {
        case "crash":
            Signal.segmentationFault.raise()
        case "memory":
            while true {
                guard SystemProcess.allocateResident(bytes: 16 << 20) else {
                    Output.error("fault injection: out of memory")
                    SystemProcess.abort()
                }
            }
        case "spin":
            var x: UInt64 = 1
            while x != 0 { x = x &* 6364136223846793005 &+ 1 }
        case "hang":
            while true { SystemProcess.sleep(seconds: 60) }
        case "slow":
            SystemProcess.sleep(seconds: 3)
        default:
            return
        }
    }
}
