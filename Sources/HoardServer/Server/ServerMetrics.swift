import CoreMetrics
import Prometheus

/// What the server reports through swift-metrics: requests by status, the time of each stage,
/// requests in flight and the decode queue's length. With a Prometheus registry these are the
/// `/metrics` page; the cache's own hits per tier join them when its configuration uses the same
/// factory.
struct ServerMetrics: Sendable {
    /// The stages a request's time is split into.
    enum Stage: String, Sendable, CaseIterable {
        /// From arrival to the answer.
        case total
        /// Waiting for a place in the decode queue.
        case queue
        /// Reading or downloading the original.
        case origin
        /// Decoding and resizing.
        case decode
        /// Encoding the output.
        case encode
    }

    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let durations: [Stage: CoreMetrics.Timer]
    private let inFlight: CoreMetrics.Gauge
    private let queueLength: CoreMetrics.Gauge
    private let memoryHits: CoreMetrics.Counter
    /// The counters of the statuses the server answers with, made once: making one per request
    /// takes the factory's lock, which the event loops then contend for.
    private let statusCounters: [Int: CoreMetrics.Counter]

    /// The statuses ``ServeError`` and the routes answer with.
    static let statuses = [200, 304, 400, 403, 404, 413, 415, 422, 500, 502, 503, 504]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        factory = PrometheusMetricsFactory(registry: registry)
        var durations: [Stage: CoreMetrics.Timer] = [:]
        for stage in Stage.allCases {
            durations[stage] = CoreMetrics.Timer(
                label: "hoard_serve_duration_seconds", dimensions: [("stage", stage.rawValue)], factory: factory)
        }
        self.durations = durations
        inFlight = CoreMetrics.Gauge(label: "hoard_serve_in_flight", factory: factory)
        queueLength = CoreMetrics.Gauge(label: "hoard_serve_queue_length", factory: factory)
        memoryHits = CoreMetrics.Counter(label: "hoard_serve_memory_hits_total", factory: factory)
        var statusCounters: [Int: CoreMetrics.Counter] = [:]
        for status in Self.statuses { statusCounters[status] = Self.counter(status: status, factory: factory) }
        self.statusCounters = statusCounters
    }

    private static func counter(status: Int, factory: PrometheusMetricsFactory) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "hoard_serve_requests_total", dimensions: [("status", String(status))], factory: factory)
    }

    /// The factory, for the cache's configuration.
    var metricsFactory: any MetricsFactory { factory }

    /// Counts one answer with its status.
    func count(status: Int) {
        (statusCounters[status] ?? Self.counter(status: status, factory: factory)).increment()
    }

    /// Counts one answer served from the server's memory.
    func countMemoryHit() {
        memoryHits.increment()
    }

    /// Records how long `stage` took.
    func record(_ stage: Stage, _ duration: Duration) {
        durations[stage]?.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// Records the requests in flight and the queue's length now.
    func record(inFlight requests: Int, queueLength waiting: Int) {
        inFlight.record(requests)
        queueLength.record(waiting)
    }

    /// The Prometheus text of every metric of the registry.
    func text() -> String { registry.emitToString() }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : scaled &+ attoseconds / 1_000_000_000
    }
}
