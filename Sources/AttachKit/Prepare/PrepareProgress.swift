/// How far the preparation running on this thread has got, for whoever asked to watch it (a
/// batch's progress bar, through its worker's progress lines): the share of the output's
/// duration an audio or video clip has written so far, `0...1`, reported as the clip is written
/// (each attempt of a budget fit starts again from 0). Images report nothing.
///
/// A task-local value, so it follows the preparation down to ``ClipWriter`` without a parameter
/// through every step, and is bound on the thread that prepares (also outside a task). Nobody
/// watching costs one task-local read per clip.
package enum PrepareProgress {
    /// The sink of the preparation running here; `nil` when nobody watches.
    @TaskLocal package static var sink: Sink?

    /// Where fractions go: at most one every ``interval`` seconds, the first at once, and only
    /// when the whole percent changed, so a fast encode sends a handful and a long one one or two
    /// a second.
    package final class Sink: Sendable {
        private let report: @Sendable (Double) -> Void
        private let last = Locked<Last>(Last())
        private struct Last: Sendable {
            var percent = -1
            var at: ContinuousClock.Instant?
        }
        /// The least time between two reports.
        package static let interval: Duration = .milliseconds(250)

        package init(_ report: @escaping @Sendable (Double) -> Void) { self.report = report }

        /// Reports `fraction` (clamped to `0...1`) unless one was reported too recently, or with
        /// the same whole percent.
        package func update(_ fraction: Double) {
            guard fraction.isFinite else { return }
            let clamped = min(1, max(0, fraction))
            let percent = Int((clamped * 100).rounded(.down))
            let now = ContinuousClock.now
            let due = last.withLock { last -> Bool in
                guard percent != last.percent, last.at.map({ now - $0 >= Self.interval }) ?? true else { return false }
                last = Last(percent: percent, at: now)
                return true
            }
            if due { report(clamped) }
        }
    }

    /// Runs `body` with `report` receiving its progress (throttled by ``Sink``); with `nil`, as it is.
    package static func reporting<Value>(to report: (@Sendable (Double) -> Void)?, _ body: () throws -> Value) rethrows -> Value {
        guard let report else { return try body() }
        return try $sink.withValue(Sink(report), operation: body)
    }
}
