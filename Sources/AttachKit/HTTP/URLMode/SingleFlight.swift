import Dispatch

/// Concurrent work on one key done once: the first caller (the leader) runs it, callers that come
/// while it runs wait and get its result; a caller after it ended runs it again.
package final class SingleFlight<Value: Sendable>: Sendable {
    private final class Flight: @unchecked Sendable {
        let done = DispatchGroup()
        var value: Value?
    }

    private let flights = Locked<[String: Flight]>([:])

    package init() {}

    /// Runs `work` for `key` unless it is running already, then waits for that run's value.
    /// - Returns: the value, and whether this caller ran the work.
    package func run(_ key: String, _ work: () -> Value) -> (value: Value, leader: Bool) {
        let (flight, leader) = flights.withLock { running -> (Flight, Bool) in
            if let flight = running[key] { return (flight, false) }
            let flight = Flight()
            flight.done.enter()
            running[key] = flight
            return (flight, true)
        }
        guard leader else {
            flight.done.wait()
            return (flight.value!, false)
        }
        let value = work()
        flight.value = value
        flights.withLock { $0[key] = nil }
        flight.done.leave()
        return (value, true)
    }
}
