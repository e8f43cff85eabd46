import AttachKit
import Dispatch
import Synchronization

/// Turns SIGINT/SIGTERM into a clean stop: the first asks work to stop (in-flight items finish,
/// no temporary file is left); a second SIGINT exits at once with status 130 (temporaries a forced
/// exit leaves are removed by the next run).
final class SignalWatch {
    private final class Seen: Sendable {
        let terminate = Atomic<Bool>(false)
        let count = Atomic<Int>(0)
    }

    private let sources: [any DispatchSourceSignal]
    private let seen = Seen()

    /// - Parameter quiet: do not print the "stopping" notice (a server's stderr is its log).
    init(stop: StopSignal, quiet: Bool = false) {
        var sources: [any DispatchSourceSignal] = []
        let seen = self.seen
        for number in [Signal.interrupt, .terminate] {
            number.ignore()
            let source = DispatchSource.makeSignalSource(signal: number.rawValue, queue: .global())
            source.setEventHandler {
                if number == .terminate { seen.terminate.store(true, ordering: .relaxed) }
                let signals = seen.count.add(1, ordering: .relaxed).newValue
                if signals > 1 && number == .interrupt { SystemProcess.exitImmediately(130) }
                stop.stop()
                if !quiet { Output.error("attachkit: stopping after the files in progress (Ctrl-C again to abort)") }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    var receivedTerminate: Bool { seen.terminate.load(ordering: .relaxed) }

    deinit { for source in sources { source.cancel() } }
}
