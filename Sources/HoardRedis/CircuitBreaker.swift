import HoardCore
import HoardSystem

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

    /// Records a successful command: it resets the count of consecutive failures while the
    /// breaker is closed. While it is open, a success is a reply to a command sent before it
    /// opened, and says nothing about the server now: only a probe closes the breaker.
    func recordCommandSuccess() {
        state.withLock { state in
            if state.openUntil == nil { state.consecutiveFailures = 0 }
        }
    }

    /// Records a successful probe (or any success that proves the server answers now).
    ///
    /// - Returns: Whether this closed an open breaker.
    func recordSuccess() -> Bool {
        state.withLock { state in
            let wasOpen = state.openUntil != nil
            state = State(backOff: initialBackOff)
            return wasOpen
        }
    }

    /// Records a failed command; `opening` opens the breaker whatever the count (a missed
    /// deadline: the next command would wait for the same silent server).
    ///
    /// - Returns: The back-off period when this opened a closed breaker; `nil` otherwise (still
    ///   closed, or already open: a reply to a command sent before it opened).
    func recordFailure(now: ContinuousClock.Instant = .now, opening: Bool = false) -> Duration? {
        state.withLock { state in
            state.consecutiveFailures += 1
            guard state.openUntil == nil, opening || state.consecutiveFailures >= threshold else { return nil }
            state.openUntil = now + state.backOff
            return state.backOff
        }
    }

    /// Records a failed probe: the breaker stays open for twice the last back-off, up to the
    /// maximum, and the next probe may start after that.
    func recordProbeFailure(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.isProbing = false
            state.backOff = min(state.backOff * 2, maximumBackOff)
            state.openUntil = now + state.backOff
        }
    }
}
