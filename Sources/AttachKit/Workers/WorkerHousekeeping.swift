/// What a worker process does between jobs.
package enum WorkerHousekeeping {
    /// Returns freed heap memory to the kernel (glibc `malloc_trim`) when the worker holds more
    /// than 128 MiB, so what one big file needed is not resident, and counted against the memory
    /// limit, while the next one runs. Below that it keeps the memory: trimming after every small
    /// file costs page faults (measured: about 1 ms per file).
    package static func releaseFreedMemory() {
        guard WorkerProcess.residentBytes(of: SystemProcess.id) > 128 << 20 else { return }
        LinuxCalls.trimHeap()
    }
}
