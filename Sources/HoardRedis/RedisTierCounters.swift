import HoardCore
import HoardSystem

/// The counters behind ``RedisTier/statistics``, shared by the tier and its servers.
final class RedisTierCounters: Sendable {
    private let statistics = Lock(RedisTierStatistics())

    /// Changes the counters.
    func count(_ change: (inout RedisTierStatistics) -> Void) {
        statistics.withLock { change(&$0) }
    }

    /// A snapshot.
    var snapshot: RedisTierStatistics { statistics.withLock { $0 } }
}
