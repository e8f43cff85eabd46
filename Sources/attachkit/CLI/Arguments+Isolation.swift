import AttachKit

extension Arguments {
    /// The options `batch` and `serve` share for where the work runs.
    static let isolationOptions: Set<String> = ["worker-memory", "worker-cpu", "worker-timeout"]
    static let isolationFlags: Set<String> = ["in-process"]
    static let isolationSynopsis = "[--in-process | --worker-memory N --worker-cpu S --worker-timeout S]"
    static let isolationUsage = """
          --in-process        do the work in this process instead of isolated worker processes
                              (faster to start; a decoder crash then ends the whole run)
          --worker-memory N   resident memory per worker, e.g. 1GB (default 1 GiB); over it the
                              file fails with over-memory and the worker is replaced
          --worker-cpu S      CPU seconds per file (default 600), then timed-out
          --worker-timeout S  wall-clock seconds per file (default 900), then timed-out
        """

    /// The service `serve` and `http` run: the `allow` roots, `--profile`, `--jobs` (default: cores)
    /// and the isolation options.
    /// - Throws: ``UsageError`` for an option out of range or a service that cannot start.
    func service(allow roots: [String]) throws(UsageError) -> AttachKitService {
        let profile = try profile()
        do {
            return try AttachKitService(allow: roots, profile: profile, jobs: try int("jobs", in: 1...256) ?? BatchOptions.coreCount,
                                        isolation: try isolation())
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// `--in-process`, or worker processes with the `--worker-*` limits.
    /// - Throws: ``UsageError`` for a limit out of range.
    func isolation() throws(UsageError) -> Isolation {
        if flag("in-process") {
            for name in Self.isolationOptions where value(name) != nil {
                throw UsageError("--\(name) applies to worker processes; it cannot be used with --in-process")
            }
            return .inProcess
        }
        var limits = WorkerLimits()
        if let memory = try bytes("worker-memory", WorkerLimits.memoryOption) { limits.memoryBytes = memory }
        if let cpu = try int("worker-cpu", in: WorkerLimits.secondsRange) { limits.cpuSeconds = cpu }
        if let wall = try int("worker-timeout", in: WorkerLimits.secondsRange) { limits.wallSeconds = Double(wall) }
        return .workers(limits)
    }
}
