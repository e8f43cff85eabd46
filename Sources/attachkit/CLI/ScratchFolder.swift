import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder for a command's own work (`budget`'s calibration samples and timed
/// outputs), removed with everything in it when the command ends, and also when SIGINT or SIGTERM
/// stops it: the folder is removed, then the process exits with 128 + the signal number (130,
/// 143). Only for commands with nothing else to finish on a signal.
final class ScratchFolder {
    /// The folder's path (`/tmp/attachkit-NAME.XXXXXX`).
    let path: String
    private let sources: [any DispatchSourceSignal]

    /// Creates the folder; `nil` when it cannot be made.
    init?(name: String) {
        var template = Array("/tmp/attachkit-\(name).XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } }) else { return nil }
        path = made
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Self.remove(made)
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
        Self.remove(path)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// Removes `path` and everything under it, without following symbolic links.
    private static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
