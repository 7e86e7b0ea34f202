import HoardSystem

/// A table of values whose costs (an estimate of the memory each entry takes, given by the caller)
/// total at most a limit; when one more would not fit, everything is forgotten first. For memos
/// that repeated requests hit and any request may grow: forgetting all at once keeps it simple and
/// bounded, and a memo refills from the requests that follow.
///
/// Invariant: the costs of the entries held total at most ``byteLimit``.
final class BoundedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: (value: Value, cost: Int)] = [:]
        var bytes = 0
    }

    /// The most the entries' costs may total.
    let byteLimit: Int
    private let state = Lock(State())

    /// An empty table whose entries' costs total at most `byteLimit` (0 holds nothing).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The value under `key`, if held.
    func value(forKey key: Key) -> Value? {
        state.withLock { $0.entries[key]?.value }
    }

    /// Holds `value` under `key` at `cost`, replacing the key's value; an entry that costs more
    /// than the limit is not held.
    func setValue(_ value: Value, forKey key: Key, cost: Int) {
        guard cost >= 0, cost <= byteLimit else { return }
        let forgotten = state.withLock { state -> State? in
            var forgotten: State?
            let previous = state.entries[key]?.cost ?? 0
            if state.bytes - previous + cost > byteLimit {
                forgotten = state
                state = State()
                state.entries[key] = (value, cost)
                state.bytes = cost
            } else {
                state.entries[key] = (value, cost)
                state.bytes += cost - previous
            }
            return forgotten
        }
        // The forgotten entries are freed here, outside the lock.
        withExtendedLifetime(forgotten) {}
    }

    /// The entries held now.
    var count: Int { state.withLock { $0.entries.count } }

    /// The costs of the entries held now.
    var byteCount: Int { state.withLock { $0.bytes } }
}
