#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor with one owner (swift-system's `FileDescriptor`, noncopyable): closed
/// when the value goes away, unless it was handed on with ``release()``. Every call retries
/// `EINTR` (``SystemCall``; a read can be told not to, ``waitForInput(milliseconds:)`` never does)
/// and throws the `errno` captured straight after it. ``rawValue`` lends
/// the number to C libraries and `*at` calls for as long as the owner lives.
struct FileDescriptor: ~Copyable, Sendable {
    let rawValue: Int32

    /// Takes ownership of `rawValue` (a descriptor opened elsewhere: a socket pair's end, a C library's).
    init(adopting rawValue: Int32) { self.rawValue = rawValue }

    deinit { Glibc.close(rawValue) }

    /// Closes now (`close(2)` is never retried: on Linux the descriptor is gone even after `EINTR`).
    consuming func close() {
        let raw = rawValue
        discard self
        Glibc.close(raw)
    }

    /// Hands the descriptor on without closing it: the caller owns the number now.
    consuming func release() -> Int32 {
        let raw = rawValue
        discard self
        return raw
    }

    /// `AT_FDCWD`: names relative to the working directory, for the `*at` calls.
    static let workingDirectory = AT_FDCWD

    /// `open(2)`'s flags. `O_CLOEXEC` is always added: no descriptor leaks into a child process.
    struct OpenOptions: OptionSet, Sendable {
        let rawValue: Int32
        init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_RDONLY` (no bit: the default).
        static let readOnly = OpenOptions([])
        static let writeOnly = OpenOptions(rawValue: O_WRONLY)
        static let readWrite = OpenOptions(rawValue: O_RDWR)
        static let create = OpenOptions(rawValue: O_CREAT)
        static let exclusive = OpenOptions(rawValue: O_EXCL)
        static let truncate = OpenOptions(rawValue: O_TRUNC)
        static let append = OpenOptions(rawValue: O_APPEND)
        static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_PATH`: a location, not read (see ``Descriptors/pathOnly``).
        static let pathOnly = OpenOptions(rawValue: LinuxCalls.openPathOnly)
    }

    /// `openat(directory, path, options | O_CLOEXEC, mode)`; `directory` is ignored for an absolute path.
    static func open(_ path: String, _ options: OpenOptions, mode: UInt32 = 0,
                     in directory: Int32 = workingDirectory) throws(SystemError) -> FileDescriptor {
        FileDescriptor(adopting: try SystemCall.value { openat(directory, path, options.rawValue | O_CLOEXEC, mode_t(mode)) })
    }

    /// `read(2)` into `buffer`: the count read, 0 at the end of the input.
    func read(into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(SystemError) -> Int {
        try Self.read(rawValue, into: buffer, retryOnInterrupt: retryOnInterrupt)
    }

    /// `pread(2)` at `offset`: the count read, 0 at the end of the file.
    func read(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try SystemCall.value { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `write(2)`: the count written (possibly short).
    func write(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int { try Self.write(rawValue, buffer) }

    /// Writes all of `buffer`, at the file position (`offset` `nil`) or with `pwrite(2)` from
    /// `offset`, going on after short writes.
    func writeAll(_ buffer: UnsafeRawBufferPointer, toAbsoluteOffset offset: Int64? = nil) throws(SystemError) {
        try Self.writeAll(rawValue, buffer, toAbsoluteOffset: offset)
    }

    /// ``writeAll(_:toAbsoluteOffset:)`` of an array's first `count` bytes (all by default).
    func writeAll(_ bytes: [UInt8], count: Int? = nil, toAbsoluteOffset offset: Int64? = nil) throws(SystemError) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SystemError) in
                try Self.writeAll(rawValue, UnsafeRawBufferPointer(rebasing: raw[..<(count ?? raw.count)]), toAbsoluteOffset: offset)
            }
        }.get()
    }

    /// ``read(into:retryOnInterrupt:)`` into an array (as much as it holds): the count read.
    func read(into buffer: inout [UInt8], retryOnInterrupt: Bool = true) throws(SystemError) -> Int {
        try Self.read(rawValue, into: &buffer, retryOnInterrupt: retryOnInterrupt)
    }

    /// ``read(fromAbsoluteOffset:into:)`` into an array (as much as it holds): the count read.
    func read(fromAbsoluteOffset offset: Int64, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try read(fromAbsoluteOffset: offset, into: raw) }
        }.get()
    }

    /// Waits for input (``waitForInput(_:milliseconds:)``).
    func waitForInput(milliseconds: Int32) throws(SystemError) -> Bool {
        try Self.waitForInput(rawValue, milliseconds: milliseconds)
    }

    // The same calls on a descriptor another owner holds (standard input and output, a reader's
    // borrowed descriptor): the caller keeps it open meanwhile.

    /// `read(2)` of `descriptor`.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(SystemError) -> Int {
        try SystemCall.value(retryOnInterrupt: retryOnInterrupt) { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// `read(2)` of `descriptor` into an array (as much as it holds): the count read.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8], retryOnInterrupt: Bool = true) throws(SystemError) -> Int {
        try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try read(descriptor, into: raw, retryOnInterrupt: retryOnInterrupt) }
        }.get()
    }

    /// `write(2)` to `descriptor`: the count written (possibly short).
    static func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try SystemCall.value { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes all of `buffer` to `descriptor` (``writeAll(_:toAbsoluteOffset:)``).
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, toAbsoluteOffset offset: Int64? = nil) throws(SystemError) {
        var done = 0
        while done < buffer.count {
            let rest = UnsafeRawBufferPointer(rebasing: buffer[done...])
            if let offset {
                done += try SystemCall.value { pwrite(descriptor, rest.baseAddress, rest.count, off_t(offset) + off_t(done)) }
            } else {
                done += try SystemCall.value { Glibc.write(descriptor, rest.baseAddress, rest.count) }
            }
        }
    }

    /// `poll(2)` for input on `descriptor`, up to `milliseconds` (`-1`: no limit): whether input
    /// (or its end, or an error) is ready. Not retried: ``SystemError/interrupted`` is thrown, so
    /// the caller looks at what the signal changed.
    static func waitForInput(_ descriptor: Int32, milliseconds: Int32) throws(SystemError) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return try SystemCall.value(retryOnInterrupt: false) { poll(&poller, 1, milliseconds) } > 0
    }

    /// `fstat(2)`.
    func status() throws(SystemError) -> FileStatus { try Self.status(of: rawValue) }

    /// `fstat(2)` of a descriptor another owner holds.
    static func status(of descriptor: Int32) throws(SystemError) -> FileStatus {
        var status = stat()
        try SystemCall.check { fstat(descriptor, &status) }
        return FileStatus(status)
    }

    /// `fsync(2)`: the file's data and metadata on disk.
    func sync() throws(SystemError) { try SystemCall.check { fsync(rawValue) } }

    /// `ftruncate(2)`.
    func truncate(to size: Int64) throws(SystemError) { try SystemCall.check { ftruncate(rawValue, off_t(size)) } }

    /// `lseek(SEEK_END)`: the file's size, where the next write goes.
    func seekToEnd() throws(SystemError) -> Int64 { Int64(try SystemCall.value { lseek(rawValue, 0, SEEK_END) }) }

    /// `fchmod(2)`.
    func setPermissions(_ mode: UInt32) throws(SystemError) { try SystemCall.check { fchmod(rawValue, mode_t(mode)) } }

    /// `fcntl(F_DUPFD_CLOEXEC)`: a second owner of the same open file.
    func duplicate() throws(SystemError) -> FileDescriptor {
        FileDescriptor(adopting: try SystemCall.value { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// `flock(2)`'s operations.
    enum Lock: Sendable {
        case shared, exclusive

        var operation: Int32 { self == .shared ? LOCK_SH : LOCK_EX }
    }

    /// `flock(2)`: takes `lock` on the open file, waiting for it unless `wait` is `false`
    /// (then ``SystemError/wouldBlock`` when another open file holds a conflicting one).
    func lock(_ lock: Lock, wait: Bool = true) throws(SystemError) {
        try SystemCall.check { flock(rawValue, lock.operation | (wait ? 0 : LOCK_NB)) }
    }

    /// Reads to the end of the input, in 64 KiB chunks (a read error ends it too); `nil` when
    /// more than `limit` bytes came.
    func readAll(limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = (try? read(into: &chunk)) ?? 0
            guard count > 0 else { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > limit { return nil }
        }
    }
}

/// What `stat(2)` says of a file.
struct FileStatus: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case regular, directory, fifo, characterDevice, blockDevice, socket, symbolicLink, unknown
    }

    let kind: Kind
    /// `st_size`, `st_nlink`.
    let size: Int64, linkCount: UInt64
    /// The permission bits (`st_mode & 07777`) and the owner's user id.
    let permissions: UInt32, owner: UInt32
    /// `st_dev` and `st_ino`: which file it is (``FileIdentity``).
    let device: UInt64, inode: UInt64
    /// `st_mtim` and `st_ctim`, nanoseconds since 1970.
    let modified: Int64, changed: Int64

    init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symbolicLink
        default: kind = .unknown
        }
        size = Int64(status.st_size)
        linkCount = UInt64(status.st_nlink)
        permissions = UInt32(status.st_mode & 0o7777)
        owner = UInt32(status.st_uid)
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modified = Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_ctim.tv_nsec)
    }
}
