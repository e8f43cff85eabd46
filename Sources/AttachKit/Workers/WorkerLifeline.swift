/// What ties a worker process's life to its parent's: a worker outliving a killed `batch`,
/// `serve` or `http` would go on writing into the output folder with nobody watching its memory
/// or its clock, beside the next run.
///
/// The kernel kills the worker when its parent goes (`PR_SET_PDEATHSIG` with `SIGKILL`). That
/// signal comes when the *thread* that spawned the worker ends, not the process, so every worker
/// of a ``WorkerProcessPool`` is spawned by one thread the pool keeps until its workers are
/// stopped. A parent that died between the spawn and the call is caught by comparing
/// `getppid()` with the pid it passed (`--parent`).
package enum WorkerLifeline {
    /// Asks for `SIGKILL` when the parent goes, then exits at once (status 70) when the parent is
    /// no longer `parent`. The first thing `attachkit worker` does.
    package static func bind(toParent parent: Int32) {
        _ = LinuxCalls.setParentDeathSignal(Signal.kill.rawValue)
        if SystemProcess.parentID != parent { SystemProcess.exitImmediately(70) }
    }
}
