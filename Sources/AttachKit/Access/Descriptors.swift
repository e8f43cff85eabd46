/// Which file a descriptor or a name refers to: device and inode, what every path to the same
/// file shares and a swapped file does not.
struct FileIdentity: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The file behind an open descriptor (`fstat`); `nil` when it cannot be read.
    init?(descriptor: Int32) {
        guard let status = try? FileDescriptor.status(of: descriptor) else { return nil }
        self.init(status)
    }

    /// The file `name` names in the folder `directory` (`fstatat`); symbolic links are followed
    /// unless `followingLinks` is `false`. `nil` when there is nothing there.
    init?(named name: String, in directory: Int32, followingLinks: Bool) {
        guard let status = FileNames.statusIfPresent(name, in: directory, followingLinks: followingLinks) else { return nil }
        self.init(status)
    }

    /// The file at `path` (absolute, or relative to the working directory); `nil` when there is
    /// nothing there.
    init?(path: String, followingLinks: Bool) {
        self.init(named: path, in: FileNames.workingDirectory, followingLinks: followingLinks)
    }

    init(_ status: FileStatus) {
        device = status.device
        inode = status.inode
    }
}

/// Opening files by descriptor rather than by path, so that what was checked is what is read.
///
/// A path is looked up again at every `open`; between a check and a later open, someone who can
/// write in the folder can swap a file for a symbolic link. A descriptor keeps pointing at the
/// inode it was opened on. AttachKit opens every input and output folder once, beneath the
/// descriptor of its scope's root, and hands the libraries a path through that descriptor.
enum Descriptors {
    /// `O_PATH`: opens a location without reading it (no permission to read needed, a FIFO does
    /// not block); the descriptor can be `fstat`ed, used as a folder for `*at` calls, and opened
    /// again for reading through ``path(of:)``.
    static let pathOnly = FileDescriptor.OpenOptions.pathOnly

    /// A path that reaches exactly the file behind `descriptor` (`/proc/self/fd/N`): opening it
    /// again opens that same inode (procfs "magic link"), whatever was renamed, deleted or swapped
    /// since. Valid while the descriptor stays open, in this process only.
    static func path(of descriptor: Int32) -> String {
        "/proc/self/fd/\(descriptor)"
    }

    /// Where the file behind `descriptor` is now (the target of its `/proc/self/fd/N` link, every
    /// symbolic link resolved), for messages and reports; `nil` when procfs cannot say.
    static func location(of descriptor: Int32) -> String? {
        guard let target = try? FileNames.linkTarget(path(of: descriptor)), target.hasPrefix("/") else { return nil }
        return target
    }

    /// Opens `relative` beneath the folder `directory` without following any symbolic link or
    /// leaving the folder: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`,
    /// or a component-by-component `O_NOFOLLOW` walk on kernels without `openat2`. An empty path
    /// opens the folder itself. `O_CLOEXEC` is always added.
    /// - Returns: the descriptor, or the `errno` (`ELOOP` for a link, `EXDEV` for an escape).
    static func open(beneath directory: Int32, _ relative: String, flags: FileDescriptor.OpenOptions, mode: UInt32 = 0) -> Result<Int32, SystemError> {
        SystemCall.result { LinuxCalls.openBeneath(directory, relative, flags: flags.rawValue, mode: mode) }
    }

    /// The same, always through the `O_NOFOLLOW` walk (for tests of the fallback).
    static func walk(beneath directory: Int32, _ relative: String, flags: FileDescriptor.OpenOptions, mode: UInt32 = 0) -> Result<Int32, SystemError> {
        SystemCall.result { LinuxCalls.openBeneathWalk(directory, relative.isEmpty ? "." : relative, flags: flags.rawValue, mode: mode) }
    }

    /// Whether `descriptor` is a folder.
    static func isFolder(_ descriptor: Int32) -> Bool {
        (try? FileDescriptor.status(of: descriptor))?.kind == .directory
    }

    /// What kind of file is behind `descriptor`, in words for messages ("a folder", "a FIFO"), or
    /// `nil` for a regular file.
    static func irregularKind(of descriptor: Int32) -> String? {
        let status: FileStatus
        do { status = try FileDescriptor.status(of: descriptor) } catch { return "unreadable (\(error))" }
        switch status.kind {
        case .regular: return nil
        case .directory: return "a folder"
        case .fifo: return "a FIFO"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .symbolicLink: return "a symbolic link"
        case .unknown: return "not a regular file"
        }
    }
}
