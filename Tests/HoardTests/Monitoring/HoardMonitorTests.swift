import CoreMetrics
import Foundation
import Logging
import Testing

@testable import HoardCore

/// The monitor on its own: events counted per tier in read order, and delivered in order to the
/// streams that want them.
@Suite("HoardMonitor")
struct HoardMonitorTests {
    private func monitor() -> HoardMonitor {
        let tiers: [CacheTierIdentifier] = [.memory, .disk, "shared"]
        return HoardMonitor(
            logger: Logger(label: "monitor"),
            metrics: HoardMetrics(cacheName: "monitor", tiers: tiers, factory: NOOPMetricsHandler.instance),
            tierOrder: tiers)
    }

    @Test("a hit in a later tier counts a miss in every tier before it; a full miss counts one in each")
    func hitsAndMissesPerTier() {
        let monitor = monitor()
        monitor.record(.hit(key: "a", tier: "shared"))
        monitor.record(.hit(key: "b", tier: .memory))
        monitor.record(.miss(key: "c"))
        let statistics = monitor.statistics
        #expect(statistics.hits(in: "shared") == 1 && statistics.hits(in: .memory) == 1 && statistics.hits(in: .disk) == 0)
        #expect(statistics.misses(in: .memory) == 2 && statistics.misses(in: .disk) == 2 && statistics.misses(in: "shared") == 1)
        #expect(statistics.misses == 1)
    }

    @Test("a key's stream gets that key's events and the cache-wide ones, in the order they were recorded")
    func streamsInOrder() async {
        let monitor = monitor()
        let all = monitor.subscribe(key: nil, bufferingPolicy: .unbounded)
        let one = monitor.subscribe(key: "k", bufferingPolicy: .unbounded)
        monitor.record(.stored(key: "k", byteCount: 1))
        monitor.record(.evicted(tier: .memory, count: 2), then: .hit(key: "other", tier: .memory))
        monitor.record(.removedAll)
        monitor.record(.removed(key: "k"))
        monitor.finishAll()

        var everything: [String] = []
        for await event in all { everything.append("\(event)") }
        var forKey: [String] = []
        for await event in one { forKey.append("\(event)") }
        #expect(everything.count == 5)
        #expect(everything[1].contains("evicted") && everything[2].contains("hit"), "the pair in its order")
        #expect(forKey == [everything[0], everything[3], everything[4]])
        #expect(monitor.statistics.evictions(in: .memory) == 2)
    }
}
