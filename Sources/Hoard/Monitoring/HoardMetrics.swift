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
    /// The per-tier counters of one tier.
    private struct TierCounters: Sendable {
        let hits: Counter
        let misses: Counter
        let evictions: Counter
    }

    private let tierOrder: [CacheTierIdentifier]
    private let tiers: [CacheTierIdentifier: TierCounters]
    private let stores: Counter
    private let refusedStores: Counter
    private let undecodableEntries: Counter
    private let fetches: Counter
    private let fetchFailures: Counter
    private let fetchDuration: Timer

    /// Makes the metrics of the cache named `cacheName`, whose tiers are read in `tierOrder`
    /// (memory first), with `factory`.
    init(cacheName: String, tiers tierOrder: [CacheTierIdentifier], factory: any MetricsFactory) {
        let cache = ("cache", cacheName)
        func counter(_ label: String, tier: CacheTierIdentifier? = nil) -> Counter {
            Counter(label: label, dimensions: [cache] + (tier.map { [("tier", $0.rawValue)] } ?? []), factory: factory)
        }
        self.tierOrder = tierOrder
        tiers = Dictionary(
            tierOrder.map { tier in
                (
                    tier,
                    TierCounters(
                        hits: counter("hoard_hits_total", tier: tier), misses: counter("hoard_misses_total", tier: tier),
                        evictions: counter("hoard_evictions_total", tier: tier))
                )
            }, uniquingKeysWith: { first, _ in first })
        stores = counter("hoard_stores_total")
        refusedStores = counter("hoard_refused_stores_total")
        undecodableEntries = counter("hoard_undecodable_entries_total")
        fetches = counter("hoard_fetches_total")
        fetchFailures = counter("hoard_fetch_failures_total")
        fetchDuration = Timer(label: "hoard_fetch_duration_seconds", dimensions: [cache], factory: factory)
    }

    /// Counts `event` (as ``HoardStatistics`` does: a hit in one tier is a miss in those before it).
    func record(_ event: HoardEvent) {
        switch event {
        case .hit(_, let tier):
            for earlier in tierOrder.prefix(while: { $0 != tier }) { tiers[earlier]?.misses.increment() }
            tiers[tier]?.hits.increment()
        case .miss:
            for tier in tierOrder { tiers[tier]?.misses.increment() }
        case .stored: stores.increment()
        case .storeRefused: refusedStores.increment()
        case .evicted(let tier, let count): tiers[tier]?.evictions.increment(by: count)
        case .undecodableRemoved: undecodableEntries.increment()
        case .fetchStarted: fetches.increment()
        case .fetchFailed: fetchFailures.increment()
        case .fetchCoalesced, .fetchSucceeded, .servedCached, .removed, .removedAll, .expiredAll: break
        }
    }

    /// Records how long one fetch took, whether it succeeded or not.
    func recordFetch(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        fetchDuration.recordNanoseconds(overflow ? Int64.max : nanoseconds &+ attoseconds / 1_000_000_000)
    }
}
