import Hoard

/// Decides whether a Redis server is worth a command: after ``threshold`` consecutive failures
/// it opens, and commands are skipped (reads are misses, writes dropped) for a back-off period
/// that doubles after each failed probe, up to a maximum. When the period ends, one caller
/// probes the server (`PING`); success closes the breaker, failure opens it again.
///
/// Each transition is reported once by the methods that make it, so the caller logs each change
/// of state once.
final class CircuitBreaker: Sendable {
    /// What a caller may do now.
    enum Permission: Equatable {
        /// Send the command.
        case allowed
        /// The back-off period is over: send a `PING` first, and report its outcome.
        case probe
        /// Skip the command.
        case refused
    }

    private struct State {
        var consecutiveFailures = 0
        /// When the breaker is open: until when commands are skipped.
        var openUntil: ContinuousClock.Instant?
        var backOff: Duration
        var isProbing = false
    }

    let threshold: Int
    let initialBackOff: Duration
    let maximumBackOff: Duration
    private let state: Lock<State>

    init(threshold: Int, initialBackOff: Duration, maximumBackOff: Duration) {
        self.threshold = threshold
        self.initialBackOff = initialBackOff
        self.maximumBackOff = maximumBackOff
        state = Lock(State(backOff: initialBackOff))
    }

    /// Whether the breaker is open (commands skipped or probing).
    var isOpen: Bool { state.withLock { $0.openUntil != nil } }

    /// What a caller may do now; at most one caller at a time is told to probe.
    func permission(now: ContinuousClock.Instant = .now) -> Permission {
        state.withLock { state in
            guard let openUntil = state.openUntil else { return .allowed }
            guard now >= openUntil, !state.isProbing else { return .refused }
            state.isProbing = true
            return .probe
        }
    }

    /// Records a successful command or probe.
    ///
    /// - Returns: Whether this closed an open breaker.
    func recordSuccess() -> Bool {
        state.withLock { state in
            let wasOpen = state.openUntil != nil
            state = State(backOff: initialBackOff)
            return wasOpen
        }
    }

    /// Records a failed command or probe.
    ///
    /// - Returns: The back-off period when this opened a closed breaker; `nil` otherwise (still
    ///   closed, or a failed probe that only lengthened the back-off).
    func recordFailure(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            state.consecutiveFailures += 1
            if state.isProbing {
                state.isProbing = false
                state.backOff = min(state.backOff * 2, maximumBackOff)
                state.openUntil = now + state.backOff
                return nil
            }
            guard state.openUntil == nil, state.consecutiveFailures >= threshold else { return nil }
            state.openUntil = now + state.backOff
            return state.backOff
        }
    }
}
