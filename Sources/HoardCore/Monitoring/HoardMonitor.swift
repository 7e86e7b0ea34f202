import HoardSystem
import Logging

/// Counts ``HoardEvent``s into ``HoardStatistics`` and swift-metrics (``HoardMetrics``), hands them
/// to the observers' streams, and logs them: every event at debug level, failed fetches (other
/// than cancellations) and removed undecodable entries as warnings.
///
/// Invariant: every event is counted, and delivered to every stream that wants it, in the order
/// it was recorded (one lock holds the counts and the streams).
final class HoardMonitor: Sendable {
    /// An observer's stream: every event, or one key's and the cache-wide ones.
    private struct Subscriber {
        var key: String?
        var continuation: AsyncStream<HoardEvent>.Continuation

        func wants(_ event: HoardEvent) -> Bool {
            guard let key else { return true }
            switch event {
            case .expiredAll, .removedAll: return true
            default: return event.key.map { ExactString($0) == ExactString(key) } ?? false
            }
        }
    }

    private struct State {
        var statistics: HoardStatistics
        var subscribers: [UInt64: Subscriber] = [:]
        var nextIdentifier: UInt64 = 0
    }

    let logger: Logger
    /// The same counts, published through swift-metrics.
    let metrics: HoardMetrics
    /// All mutable state; touched only inside `withLock`.
    private let state: Lock<State>

    /// The read order of the tiers, memory first: a hit in one is a miss in those before it.
    let tierOrder: [CacheTierIdentifier]

    init(logger: Logger, metrics: HoardMetrics, tierOrder: [CacheTierIdentifier]) {
        self.logger = logger
        self.metrics = metrics
        self.tierOrder = tierOrder
        state = Lock(State(statistics: HoardStatistics(tierOrder: tierOrder)))
    }

    /// Counts `event`, yields it to the observers that want it, and logs it.
    ///
    /// Events are yielded under the lock so that every observer sees them in the order they were
    /// counted; `yield` only enqueues, it never runs observer code.
    func record(_ event: HoardEvent) {
        record(nil, then: event)
    }

    /// Records `first`, when there is one, then `event`, under one lock: for a read or a write and
    /// the memory evictions it caused.
    func record(_ first: HoardEvent?, then event: HoardEvent) {
        state.withLock { state in
            if let first { Self.deliver(first, to: &state) }
            Self.deliver(event, to: &state)
        }
        if let first { report(first) }
        report(event)
    }

    /// ``HoardEvent/evicted(tier:count:)`` for `count` memory evictions, `nil` for none.
    static func memoryEvictions(_ count: Int) -> HoardEvent? {
        count > 0 ? .evicted(tier: .memory, count: count) : nil
    }

    /// The counters so far.
    var statistics: HoardStatistics {
        state.withLock { $0.statistics }
    }

    /// A stream of the events recorded from now on: all of them when `key` is `nil`, else those
    /// about `key` and those about the whole cache. The stream ends when its consumer stops.
    func subscribe(
        key: String?, bufferingPolicy: AsyncStream<HoardEvent>.Continuation.BufferingPolicy
    ) -> AsyncStream<HoardEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: HoardEvent.self, bufferingPolicy: bufferingPolicy)
        let identifier = state.withLock { state in
            let identifier = state.nextIdentifier
            state.nextIdentifier += 1
            state.subscribers[identifier] = Subscriber(key: key, continuation: continuation)
            return identifier
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: identifier) }
        }
        return stream
    }

    // MARK: - Private

    /// Counts `event` and yields it to the observers that want it; under the lock.
    private static func deliver(_ event: HoardEvent, to state: inout State) {
        state.statistics.count(event)
        guard !state.subscribers.isEmpty else { return }  // the usual case: no iterator to make
        for subscriber in state.subscribers.values where subscriber.wants(event) {
            subscriber.continuation.yield(event)
        }
    }

    /// Publishes `event` through swift-metrics and logs it; outside the lock.
    private func report(_ event: HoardEvent) {
        metrics.record(event)
        switch event {
        case .fetchFailed(let key, let error) where !(error is CancellationError):
            logger.warning("Fetch failed", metadata: ["key": .string(key), "error": .string("\(error)")])
        case .servedCached(let key, let isExpired):
            logger.warning(
                "Fetch failed; serving the cached value",
                metadata: ["key": .string(key), "expired": .stringConvertible(isExpired)])
        case .undecodableRemoved(let key, let type, let reason):
            logger.warning(
                "Cached value no longer decodes; removed it",
                metadata: ["key": .string(key), "type": .string(type), "error": .string(reason)])
        default:
            logger.debug("\(event)")
        }
    }

    /// Ends every observer's stream.
    func finishAll() {
        let continuations = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }
}
