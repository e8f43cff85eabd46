#if canImport(Glibc)
import Glibc
#endif

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
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The file `name` names in the folder `directory` (`fstatat`); symbolic links are followed
    /// unless `followingLinks` is `false`. `nil` when there is nothing there.
    init?(named name: String, in directory: Int32, followingLinks: Bool) {
        var status = stat()
        guard fstatat(directory, name, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        self.init(status)
    }

    /// The file at `path` (absolute, or relative to the working directory); `nil` when there is
    /// nothing there.
    init?(path: String, followingLinks: Bool) {
        self.init(named: path, in: AT_FDCWD, followingLinks: followingLinks)
    }

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
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
    static let pathOnly = LinuxCalls.openPathOnly

    /// A path that reaches exactly the file behind `descriptor` (`/proc/self/fd/N`): opening it
    /// again opens that same inode (procfs "magic link"), whatever was renamed, deleted or swapped
    /// since. Valid while the descriptor stays open, in this process only.
    static func path(of descriptor: Int32) -> String {
        "/proc/self/fd/\(descriptor)"
    }

    /// Where the file behind `descriptor` is now (the target of its `/proc/self/fd/N` link, every
    /// symbolic link resolved), for messages and reports; `nil` when procfs cannot say.
    static func location(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path(of: descriptor), &buffer, buffer.count - 1)
        guard count > 0, buffer[0] == 0x2F else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens `relative` beneath the folder `directory` without following any symbolic link or
    /// leaving the folder: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`,
    /// or a component-by-component `O_NOFOLLOW` walk on kernels without `openat2`. An empty path
    /// opens the folder itself. `O_CLOEXEC` is always added.
    /// - Returns: the descriptor, or the `errno` (`ELOOP` for a link, `EXDEV` for an escape).
    static func open(beneath directory: Int32, _ relative: String, flags: Int32, mode: mode_t = 0) -> Result<Int32, SystemError> {
        let descriptor = LinuxCalls.openBeneath(directory, relative, flags: flags, mode: mode)
        return descriptor >= 0 ? .success(descriptor) : .failure(SystemError(code: errno))
    }

    /// The same, always through the `O_NOFOLLOW` walk (for tests of the fallback).
    static func walk(beneath directory: Int32, _ relative: String, flags: Int32, mode: mode_t = 0) -> Result<Int32, SystemError> {
        let descriptor = LinuxCalls.openBeneathWalk(directory, relative.isEmpty ? "." : relative, flags: flags, mode: mode)
        return descriptor >= 0 ? .success(descriptor) : .failure(SystemError(code: errno))
    }

    /// Whether `descriptor` is a folder.
    static func isFolder(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// What kind of file is behind `descriptor`, in words for messages ("a folder", "a FIFO"), or
    /// `nil` for a regular file.
    static func irregularKind(of descriptor: Int32) -> String? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return "unreadable (\(SystemError(code: errno)))" }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }
}
