import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// One `attachkit worker` child process: JSON Lines over a socket pair that is its stdin and
/// stdout (one request, then one answer), its stderr drained into a short tail for crash reports.
///
/// While a job runs, the thread waiting for the answer samples the worker's resident memory and
/// the wall clock every 50 ms and kills the worker when either passes its limit; the worker arms
/// its own CPU-time limit per job (`SIGXCPU`). Used by one thread at a time (the pool hands it
/// out); the owner ends it with ``stop()``, which reaps it and removes its private temporary
/// folder.
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    /// What the worker said when it started (`{"worker": "ready", "sandbox": ...}`).
    private(set) var hello: JSONValue = .null
    private let socket: Int32
    private var reader: LineReader
    private let tail = StderrTail()
    private var ended = false
    private var executable = "attachkit"

    /// Answers are longer than requests (a report with notes); 16 MB is far above any real one.
    static let maxAnswerBytes = 16 << 20

    private init(pid: pid_t, socket: Int32, stderr: Int32) {
        self.pid = pid
        self.socket = socket
        self.reader = LineReader(fd: socket, maxBytes: Self.maxAnswerBytes, pollMilliseconds: 50)
        tail.drain(stderr)
    }

    /// Starts `executable worker ARGUMENTS... --parent PID` (the worker binds its life to this
    /// process: ``WorkerLifeline``), without waiting for its hello: see ``awaitHello()``. Call it
    /// on a thread that lives as long as the worker (the pool's spawner).
    /// - Parameter inheriting: descriptors the worker holds as its 3, 4... while it lives (a
    ///   batch's locks: ``BatchLock``).
    /// - Throws: ``WorkerFailure/unavailable(reason:)`` when it cannot be started.
    static func launch(executable: String, arguments: [String], inheriting: [Int32] = []) throws(WorkerFailure) -> WorkerProcess {
        guard let (parentEnd, childEnd) = LinuxCalls.streamSocketPair() else {
            throw .unavailable(reason: "socketpair: \(SystemError.current)")
        }
        let pair = [parentEnd, childEnd]
        guard let (errorRead, errorWrite) = LinuxCalls.streamSocketPair() else {
            let reason = "socketpair: \(SystemError.current)"
            close(pair[0]); close(pair[1])
            throw .unavailable(reason: reason)
        }
        let errorPipe = [errorRead, errorWrite]
        let spawned = spawn(executable: executable, arguments: ["worker"] + arguments + ["--parent", String(SystemProcess.id)],
                            stdio: pair[1], stderr: errorPipe[1], inheriting: inheriting)
        close(pair[1])
        close(errorPipe[1])
        guard case .success(let pid) = spawned else {
            close(pair[0]); close(errorPipe[0])
            if case .failure(let failure) = spawned { throw failure }
            throw .unavailable(reason: "posix_spawn failed")
        }
        let worker = WorkerProcess(pid: pid, socket: pair[0], stderr: errorPipe[0])
        worker.executable = executable
        return worker
    }

    /// Waits (up to 30 s) for the hello line of a worker just launched.
    /// - Throws: ``WorkerFailure/unavailable(reason:)`` when it dies or says nothing; it is then stopped.
    func awaitHello() throws(WorkerFailure) {
        let deadline = ContinuousClock.now + .seconds(30)
        let first = reader.next(shouldStop: { ContinuousClock.now > deadline })
        guard case .text(let line)? = first, let hello = try? JSONValue.parse(line), hello["worker"]?.stringValue == "ready" else {
            let status = stop(kill: true)
            let said = tail.lastLine ?? (first.map { "\($0)" } ?? "no hello within 30 s")
            throw .unavailable(reason: "\(executable) worker did not start (wait status \(status ?? -1)): \(said)")
        }
        self.hello = hello
    }

    private static func spawn(executable: String, arguments: [String], stdio: Int32, stderr: Int32,
                              inheriting: [Int32]) -> Result<pid_t, WorkerFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdio, 0)
        posix_spawn_file_actions_adddup2(&actions, stdio, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // The inherited descriptors become 3, 4...: first copied above every descriptor involved,
        // so that placing one never overwrites another not yet placed (dup2 clears close-on-exec).
        let staging = max(([stdio, stderr] + inheriting).max()! + 1, 3 + Int32(inheriting.count))
        for (index, fd) in inheriting.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, staging + Int32(index)) }
        for index in inheriting.indices {
            posix_spawn_file_actions_adddup2(&actions, staging + Int32(index), 3 + Int32(index))
            posix_spawn_file_actions_addclose(&actions, staging + Int32(index))
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default dispositions for the signals a parent may ignore (SIGPIPE), an empty mask, and a
        // process group of its own: Ctrl-C reaches the parent, which lets in-flight jobs finish.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        // A crash is reported by the parent; Swift's backtracer would only slow the worker's death.
        var environment: [String] = []
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { environment.append(text) }
            entry = entry.advanced(by: 1)
        }
        environment.append("SWIFT_BACKTRACE=enable=no")
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { return .failure(.unavailable(reason: "\(executable): \(SystemError(code: status))")) }
        return .success(pid)
    }

    /// The start of a progress line a worker writes before its answer when the request asked for
    /// it (`"progress": true` among a prepare's options): `{"progress":0.42,"id":...}`, the share
    /// of the output encoded. An answer starts with `{"id":`, so the two cannot be confused.
    static let progressPrefix = #"{"progress":"#

    /// Sends one request line and returns the answer line, or why there is none (the worker is then
    /// dead and must not be used again). Progress lines before the answer go to `progress`
    /// (their fraction), never taken for the answer.
    func exchange(_ request: String, limits: WorkerLimits, progress: ((Double) -> Void)? = nil) -> Result<String, WorkerFailure> {
        guard !ended else { return .failure(.exited(status: 0, detail: "the worker had already ended")) }
        var bytes = Array(request.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + offset, $0.count - offset, LinuxCalls.sendWithoutSignal) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(end(killedFor: nil, seenBytes: 0, limits: limits))
            }
            offset += n
        }
        let start = ContinuousClock.now
        var killedFor: WorkerFailure?
        var seen: Int64 = 0
        var answer: LineReader.Line?
        repeat {
            answer = reader.next(shouldStop: { [pid] in
                guard killedFor == nil else { return false }
                let resident = Self.residentBytes(of: pid)
                seen = max(seen, resident)
                if resident > limits.memoryBytes {
                    killedFor = .overMemory(limitBytes: limits.memoryBytes, seenBytes: resident)
                } else if (ContinuousClock.now - start) > .seconds(limits.wallSeconds) {
                    killedFor = .timedOut(limitSeconds: limits.wallSeconds, cpu: false)
                }
                if killedFor != nil { kill(pid, SIGKILL) }
                return false
            })
            guard case .text(let line)? = answer, line.hasPrefix(Self.progressPrefix) else { break }
            if let fraction = (try? JSONValue.parse(line))?["progress"]?.doubleValue, fraction.isFinite { progress?(min(1, max(0, fraction))) }
        } while true
        switch answer {
        case .text(let line)?: return .success(line)
        case .tooLong?, nil: return .failure(end(killedFor: killedFor, seenBytes: seen, limits: limits))
        }
    }

    /// Reaps the worker after its answer went missing and says why it died.
    private func end(killedFor: WorkerFailure?, seenBytes: Int64, limits: WorkerLimits) -> WorkerFailure {
        guard let status = stop(kill: false) else { return killedFor ?? .exited(status: -1, detail: nil) }
        if let killedFor { return killedFor }
        let detail = tail.lastLine
        // The <sys/wait.h> macros, which Swift does not import.
        let termination = status & 0x7f
        if termination != 0 && termination != 0x7f {
            let signal = termination
            if signal == SIGXCPU { return .timedOut(limitSeconds: Double(limits.cpuSeconds), cpu: true) }
            if let detail, Self.looksLikeAllocationFailure(detail) {
                return .overMemory(limitBytes: limits.memoryBytes, seenBytes: seenBytes)
            }
            return .crashed(signal: signal, detail: detail)
        }
        return .exited(status: (status >> 8) & 0xff, detail: detail)
    }

    /// Whether the worker has ended (exited or was killed) without being reaped yet: `waitid` with
    /// `WNOWAIT`, so the status stays for ``stop(kill:)`` to reap and report.
    var hasExited: Bool {
        guard !ended else { return true }
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }

    /// Ends the worker: closes its socket (a healthy worker exits on end of input, so its exit
    /// handlers run) and reaps it, killing it first when `kill` is set or it has not exited
    /// within 3 s. Returns the wait status.
    @discardableResult
    func stop(kill force: Bool = false) -> Int32? {
        guard !ended else { return nil }
        ended = true
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        if force { kill(pid, SIGKILL) }
        var status: Int32 = 0
        for attempt in 0..<500 {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return reaped(status) }
            if result < 0 && errno != EINTR { return nil }
            if attempt == 300 { kill(pid, SIGKILL) }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return reaped(status)
    }

    /// What follows the reaping: the last of stderr, and the worker's private temporary folder.
    private func reaped(_ status: Int32) -> Int32 {
        tail.join()
        PrivateTemporary.removeFolders(of: pid)
        return status
    }

    deinit { stop(kill: true) }

    /// Resident set size of `pid` from `/proc/PID/statm` (pages × page size); 0 when unreadable.
    static func residentBytes(of pid: pid_t) -> Int64 {
        guard let fd = try? FileDescriptor.open("/proc/\(pid)/statm", .readOnly) else { return 0 }
        var buffer = [UInt8](repeating: 0, count: 128)
        guard let n = try? fd.read(into: &buffer, retryOnInterrupt: false), n > 0 else { return 0 }
        let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int64(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * SystemProcess.pageSize
    }

    /// Swift's runtime, glibc and GLib say these when an allocation fails under `RLIMIT_AS`.
    static func looksLikeAllocationFailure(_ line: String) -> Bool {
        ["Could not allocate memory", "failed to allocate", "out of memory", "Cannot allocate memory", "std::bad_alloc"]
            .contains { line.lowercased().contains($0.lowercased()) }
    }
}

/// The last 4 KB a worker wrote to stderr, drained by a thread of its own so a chatty worker can
/// never block on a full pipe.
private final class StderrTail: Sendable {
    private let bytes = Locked<[UInt8]>([])
    private let done = DispatchSemaphore(value: 0)

    func drain(_ fd: Int32) {
        let bytes = self.bytes
        let done = self.done
        NativeThread.start(stackSize: 256 << 10) {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                guard let n = try? FileDescriptor.read(fd, into: &chunk), n > 0 else { break }
                bytes.withLock { tail in
                    tail.append(contentsOf: chunk[..<n])
                    if tail.count > 4096 { tail.removeFirst(tail.count - 4096) }
                }
            }
            FileDescriptor(adopting: fd).close()
            done.signal()
        }
    }

    /// Waits (at most 2 s) until the drain thread saw end of file: the worker is dead, so it comes
    /// at once unless a process it started still holds the pipe.
    func join() { _ = done.wait(timeout: .now() + 2) }

    /// The line that says why the worker died: the last Swift `Fatal error:` line, else the last
    /// non-empty line (stack-trace lines are skipped), trimmed to 300 characters.
    var lastLine: String? {
        let text = bytes.withLock { String(decoding: $0, as: UTF8.self) }
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        let chosen = lines.last { $0.contains("Fatal error:") }
            ?? lines.last { !$0.hasPrefix("Current stack trace") && $0.first?.isNumber != true && !$0.hasPrefix("*** ") }
        return chosen.map { String($0.prefix(300)) }
    }
}
