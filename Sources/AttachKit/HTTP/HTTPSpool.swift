/// The folder where `attachkit http` keeps what is in flight: each request with a body gets a
/// folder of its own, `r-PID-TTTTXXXXXX` (mode 0700; TTTT the ``AtomicOutput/hostToken``), holding the upload (`in/NAME`) and the outputs
/// (`out/`); it is removed as soon as the answer's file is open (the open descriptor keeps the
/// bytes until they are sent), and at the latest when the request ends. Folders of a server of
/// this host that is gone (killed) are removed at start; never those of another host or container
/// sharing the spool (their process ids mean nothing here), nor anything else in it.
package struct HTTPSpool: Sendable {
    /// The spool's absolute path, links resolved.
    package let root: String

    /// Creates the folder (0700) when missing.
    /// - Throws: ``ServiceError`` `write-failed` when it cannot be created.
    package init(_ path: String) throws(ServiceError) {
        guard FileSystem.makeFolders(path), let resolved = PathResolver.realPath(path) else {
            throw ServiceError(code: .writeFailed, message: "cannot create the spool folder \(path)")
        }
        root = resolved
    }

    /// A new, empty request folder with `in/` and `out/` inside; `nil` when the spool refuses writes.
    package func makeRequestFolder() -> String? {
        guard let folder = try? FileNames.makeTemporaryFolder(prefix: "\(root)/r-\(SystemProcess.id)-\(AtomicOutput.hostToken)") else { return nil }
        guard (try? FileNames.makeFolder(folder + "/in", mode: 0o700)) != nil, (try? FileNames.makeFolder(folder + "/out", mode: 0o700)) != nil else {
            Self.remove(folder)
            return nil
        }
        return folder
    }

    /// Removes a request folder and what it holds (two levels: `in/`, `out/` and their files).
    package static func remove(_ folder: String) {
        for sub in ["in", "out"] {
            for name in entries(of: folder + "/" + sub) { try? FileNames.remove(folder + "/" + sub + "/" + name) }
            try? FileNames.removeFolder(folder + "/" + sub)
        }
        for name in entries(of: folder) { try? FileNames.remove(folder + "/" + name) }
        try? FileNames.removeFolder(folder)
    }

    /// Removes the request folders of servers that are gone; returns how many.
    @discardableResult
    package func removeStale() -> Int {
        let stale = Self.entries(of: root).filter { name in
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == "r", let pid = Int32(parts[1]), parts[2].count == 10,
                  parts[2].hasPrefix(AtomicOutput.hostToken) else { return false }
            return Processes.isGone(pid)
        }
        for name in stale { Self.remove(root + "/" + name) }
        return stale.count
    }

    /// Request folders present now (in flight, or left by a killed server).
    package var requestFolders: [String] { Self.entries(of: root).filter { $0.hasPrefix("r-") } }

    /// Whether a file can be created in the spool now (what readiness checks).
    package var isWritable: Bool {
        guard let folder = makeRequestFolder() else { return false }
        Self.remove(folder)
        return true
    }

    /// Writes all of `bytes` to `fd` (retrying short writes and `EINTR`); 0, or the `errno` of
    /// the write that failed.
    package static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32 {
        do { try FileDescriptor.writeAll(fd, bytes) } catch { return error.code }
        return 0
    }

    /// The names in `folder` (without `.` and `..`); none when it cannot be listed.
    package static func entries(of folder: String) -> [String] {
        DirectoryStream.names(in: folder) ?? []
    }
}
