/// A bounded pool of slots shared by every client, where one client address may hold at most
/// ``perClient`` of them, so one client cannot take them all. `attachkit http` keeps two: its
/// connections (``HTTPLimits/connections``) and its uploads in progress (``HTTPLimits/uploads``).
/// Safe to use from every thread.
package final class ClientSlots: Sendable {
    /// Why a slot was not given.
    package enum Refusal: Sendable, Equatable {
        /// Every slot is held.
        case full
        /// This client holds its ``ClientSlots/perClient`` slots already.
        case clientFull
    }

    package let total: Int
    package let perClient: Int
    private let held = Locked<(count: Int, byClient: [String: Int])>((0, [:]))

    package init(total: Int, perClient: Int) {
        self.total = total
        self.perClient = perClient
    }

    /// Takes a slot for `client` (its address); the refusal when none is free.
    package func take(_ client: String) -> Refusal? {
        held.withLock { held in
            guard held.count < total else { return .full }
            guard held.byClient[client, default: 0] < perClient else { return .clientFull }
            held.count += 1
            held.byClient[client, default: 0] += 1
            return nil
        }
    }

    /// Gives back a slot `client` took.
    package func release(_ client: String) {
        held.withLock { held in
            held.count -= 1
            let remaining = held.byClient[client, default: 1] - 1
            held.byClient[client] = remaining > 0 ? remaining : nil
        }
    }

    /// Slots held now.
    package var inUse: Int { held.withLock { $0.count } }

    /// Whether every slot is held.
    package var isFull: Bool { inUse >= total }
}
