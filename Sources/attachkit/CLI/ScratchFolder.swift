import AttachKit
import Dispatch

/// A temporary folder for a command's own work (`budget`'s calibration samples and timed
/// outputs), removed with everything in it when the command ends, and also when SIGINT or SIGTERM
/// stops it: the folder is removed, then the process exits with 128 + the signal number (130,
/// 143). Only for commands with nothing else to finish on a signal.
final class ScratchFolder {
    /// The folder's path (`/tmp/attachkit-NAME.XXXXXX`).
    let path: String
    private let sources: [any DispatchSourceSignal]

    /// Creates the folder.
    /// - Throws: why it cannot be made.
    init(name: String) throws(SystemError) {
        let made = try FileSystem.makeTemporaryFolder(prefix: "/tmp/attachkit-\(name).")
        path = made
        var sources: [any DispatchSourceSignal] = []
        for number in [Signal.interrupt, .terminate] {
            number.ignore()
            let source = DispatchSource.makeSignalSource(signal: number.rawValue, queue: .global())
            source.setEventHandler {
                FileSystem.removeTree(made)
                SystemProcess.exitImmediately(128 + number.rawValue)
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
        FileSystem.removeTree(path)
        Signal.interrupt.restoreDefault()
        Signal.terminate.restoreDefault()
    }
}
