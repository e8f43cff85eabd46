/// A time budget for one preparation, started when the work starts. Long work asks
/// ``check(_:)`` between steps (and inside long loops) and stops cleanly when it is spent.
public struct Deadline: Sendable {
    let start: ContinuousClock.Instant
    /// Seconds allowed; `nil` = no deadline.
    public let budget: Double?
    /// Seconds since the start as a test scripts them; `nil` = the continuous clock.
    private let scriptedElapsed: (@Sendable () -> Double)?

    public init(seconds budget: Double?) {
        self.start = .now
        self.budget = budget
        self.scriptedElapsed = nil
    }

    /// A deadline whose time is whatever `elapsed` answers on each reading, so a test can stop
    /// work at a chosen check whatever the machine's speed.
    init(seconds budget: Double, elapsed: @escaping @Sendable () -> Double) {
        self.start = .now
        self.budget = budget
        self.scriptedElapsed = elapsed
    }

    /// Seconds since the start.
    public var elapsed: Double { scriptedElapsed?() ?? (ContinuousClock.now - start).seconds }

    /// Seconds left, `nil` without a deadline (never below zero).
    public var remaining: Double? { budget.map { max(0, $0 - elapsed) } }

    public var isExpired: Bool { budget.map { elapsed >= $0 } ?? false }

    /// - Throws: ``PrepareError/deadlineExceeded(step:budget:)`` naming `step` when the budget is spent.
    public func check(_ step: String) throws(PrepareError) {
        if let budget, elapsed >= budget { throw .deadlineExceeded(step: step, budget: budget) }
    }
}
