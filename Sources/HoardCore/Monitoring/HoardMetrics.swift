import CoreMetrics

/// Publishes a ``Hoard``'s events through swift-metrics: hits and misses per tier, stores,
/// refused stores, evictions per tier, undecodable entries, fetches, failed fetches and how long
/// fetches take.
///
/// Every metric carries a `cache` dimension with the cache's name, and the per-tier ones a `tier`
/// dimension (`memory`, `disk`, or another tier's identifier). The metric objects are made with the factory of
/// ``Hoard/Configuration/metricsFactory``, else with the one the application bootstrapped with
/// `MetricsSystem.bootstrap(_:)` before the cache was created; with none, swift-metrics' no-op
/// handlers record nothing.
///
/// | label | kind | dimensions |
/// |---|---|---|
/// | `hoard_hits_total` | counter | cache, tier |
/// | `hoard_misses_total` | counter | cache, tier |
/// | `hoard_stores_total` | counter | cache |
/// | `hoard_refused_stores_total` | counter | cache |
/// | `hoard_evictions_total` | counter | cache, tier |
/// | `hoard_undecodable_entries_total` | counter | cache |
/// | `hoard_fetches_total` | counter | cache |
/// | `hoard_fetch_failures_total` | counter | cache |
/// | `hoard_fetch_duration_seconds` | timer | cache |
final class HoardMetrics: Sendable {
    /// The tiers in read order, and their counters at the same positions: arrays, so that
    /// counting a memory hit hashes nothing and copies no counter (each copy is a retain).
    private let tiers: [CacheTierIdentifier]
    private let tierHits: [Counter]
    private let tierMisses: [Counter]
    private let tierEvictions: [Counter]
    private let stores: Counter
    private let refusedStores: Counter
    private let undecodableEntries: Counter
    private let fetches: Counter
    private let fetchFailures: Counter
    private let fetchDuration: Timer
    /// Whether the metrics go anywhere: not with swift-metrics' no-op factory, whose handlers
    /// would be called for nothing on every read (a few existential calls per disk hit).
    let isRecording: Bool

    /// Makes the metrics of the cache named `cacheName`, whose tiers are read in `tierOrder`
    /// (memory first), with `factory`.
    init(cacheName: String, tiers tierOrder: [CacheTierIdentifier], factory: any MetricsFactory) {
        let cache = ("cache", cacheName)
        func counter(_ label: String, tier: CacheTierIdentifier? = nil) -> Counter {
            Counter(label: label, dimensions: [cache] + (tier.map { [("tier", $0.rawValue)] } ?? []), factory: factory)
        }
        tiers = tierOrder
        tierHits = tierOrder.map { counter("hoard_hits_total", tier: $0) }
        tierMisses = tierOrder.map { counter("hoard_misses_total", tier: $0) }
        tierEvictions = tierOrder.map { counter("hoard_evictions_total", tier: $0) }
        stores = counter("hoard_stores_total")
        refusedStores = counter("hoard_refused_stores_total")
        undecodableEntries = counter("hoard_undecodable_entries_total")
        fetches = counter("hoard_fetches_total")
        fetchFailures = counter("hoard_fetch_failures_total")
        fetchDuration = Timer(label: "hoard_fetch_duration_seconds", dimensions: [cache], factory: factory)
        isRecording = !(factory is NOOPMetricsHandler)
    }

    /// Counts `event` (as ``HoardStatistics`` does: a hit in one tier is a miss in those before it).
    func record(_ event: HoardEvent) {
        guard isRecording else { return }
        switch event {
        case .hit(_, let tier):
            for position in tiers.indices {
                if tiers[position] == tier {
                    tierHits[position].increment()
                    break
                }
                tierMisses[position].increment()
            }
        case .miss:
            for counter in tierMisses { counter.increment() }
        case .stored: stores.increment()
        case .storeRefused: refusedStores.increment()
        case .evicted(let tier, let count):
            if let position = tiers.firstIndex(of: tier) { tierEvictions[position].increment(by: count) }
        case .undecodableRemoved: undecodableEntries.increment()
        case .fetchStarted: fetches.increment()
        case .fetchFailed: fetchFailures.increment()
        case .fetchCoalesced, .waitedForSharedFetch, .fetchSucceeded, .servedCached, .removed, .removedAll, .expiredAll:
            break
        }
    }

    /// Records how long one fetch took, whether it succeeded or not.
    func recordFetch(duration: Duration) {
        guard isRecording else { return }
        let (seconds, attoseconds) = duration.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        fetchDuration.recordNanoseconds(overflow ? Int64.max : nanoseconds &+ attoseconds / 1_000_000_000)
    }
}
