import CoreMetrics

/// Publishes a ``Hoard``'s events through swift-metrics: hits and misses per tier, stores,
/// refused stores, evictions per tier, undecodable entries, fetches, failed fetches and how long
/// fetches take.
///
/// Every metric carries a `cache` dimension with the cache's name, and the per-tier ones a `tier`
/// dimension (`memory` or `disk`). The metric objects are made with the factory of
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
    private let memoryHits: Counter
    private let diskHits: Counter
    private let memoryMisses: Counter
    private let diskMisses: Counter
    private let stores: Counter
    private let refusedStores: Counter
    private let memoryEvictions: Counter
    private let diskEvictions: Counter
    private let undecodableEntries: Counter
    private let fetches: Counter
    private let fetchFailures: Counter
    private let fetchDuration: Timer

    /// Makes the metrics of the cache named `cacheName` with `factory`.
    init(cacheName: String, factory: any MetricsFactory) {
        let cache = ("cache", cacheName)
        func counter(_ label: String, tier: String? = nil) -> Counter {
            Counter(label: label, dimensions: [cache] + (tier.map { [("tier", $0)] } ?? []), factory: factory)
        }
        memoryHits = counter("hoard_hits_total", tier: "memory")
        diskHits = counter("hoard_hits_total", tier: "disk")
        memoryMisses = counter("hoard_misses_total", tier: "memory")
        diskMisses = counter("hoard_misses_total", tier: "disk")
        stores = counter("hoard_stores_total")
        refusedStores = counter("hoard_refused_stores_total")
        memoryEvictions = counter("hoard_evictions_total", tier: "memory")
        diskEvictions = counter("hoard_evictions_total", tier: "disk")
        undecodableEntries = counter("hoard_undecodable_entries_total")
        fetches = counter("hoard_fetches_total")
        fetchFailures = counter("hoard_fetch_failures_total")
        fetchDuration = Timer(label: "hoard_fetch_duration_seconds", dimensions: [cache], factory: factory)
    }

    /// Counts `event` (as ``HoardStatistics`` does: a disk hit is also a memory miss).
    func record(_ event: HoardEvent) {
        switch event {
        case .hit(_, .memory):
            memoryHits.increment()
        case .hit(_, .disk):
            memoryMisses.increment()
            diskHits.increment()
        case .miss:
            memoryMisses.increment()
            diskMisses.increment()
        case .stored: stores.increment()
        case .storeRefused: refusedStores.increment()
        case .evicted(.memory, let count): memoryEvictions.increment(by: count)
        case .evicted(.disk, let count): diskEvictions.increment(by: count)
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
