/// The limits every worker process runs under (see ``WorkerProcessPool``). A job that breaks one
/// fails alone, with code `over-memory` or `timed-out`; the worker is replaced.
public struct WorkerLimits: Sendable, Equatable {
    /// Resident memory one worker may use, in bytes. The parent samples the worker's RSS every
    /// 50 ms while a job runs and kills it above this. Default 1 GiB: twice the decode budget,
    /// since a transcode holds decoder and encoder frames at once (a 4K HEVC 10-bit → 1080p H.264
    /// transcode peaks at about 570 MB).
    public var memoryBytes: Int64 = 1 << 30
    /// Address space (`RLIMIT_AS`) of a worker: the backstop for allocations too fast for the
    /// sampler. Default 4 × ``memoryBytes``, at least 4 GiB (threads reserve virtual memory that is
    /// never touched: a 1080p transcode maps about 1.1 GB).
    public var addressSpaceBytes: Int64 { max(4 << 30, memoryBytes * 4) }
    /// CPU seconds one job may use (`RLIMIT_CPU`, re-armed by the worker before each job). Default 600.
    public var cpuSeconds: Int = 600
    /// Wall-clock seconds one job may take, for a worker blocked without using CPU. Default 900.
    public var wallSeconds: Double = 900
    /// The `attachkit` executable started as `attachkit worker`. Default `nil`: the `attachkit`
    /// beside the running executable, else the running executable itself.
    public var executable: String?

    public init(memoryBytes: Int64 = 1 << 30, cpuSeconds: Int = 600, wallSeconds: Double = 900, executable: String? = nil) {
        self.memoryBytes = memoryBytes
        self.cpuSeconds = cpuSeconds
        self.wallSeconds = wallSeconds
        self.executable = executable
    }

    /// Accepted ranges, checked where the options are read: memory 64 MiB…1 TiB (less cannot
    /// hold libvips and FFmpeg themselves), CPU and wall time 1…86,400 s.
    package static let memoryOption = OptionRange<Int64>(key: "workerMemory", (64 << 20)...(1 << 40), noun: "a byte count")
    package static let secondsRange: ClosedRange<Int> = 1...86_400
}

/// How a batch or a service runs the media work.
public enum Isolation: Sendable, Equatable {
    /// In this process, on its threads: fastest to start, but a crash in a decoder ends the process.
    case inProcess
    /// In a pool of `attachkit worker` child processes: a job that crashes its worker, or breaks a
    /// limit, fails alone and the worker is replaced.
    case workers(WorkerLimits)
}

