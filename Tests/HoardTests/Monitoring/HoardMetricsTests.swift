import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

@testable import HoardCore

@Suite("Hoard metrics")
struct HoardMetricsTests {
    @Test("hits and misses per tier, stores, evictions, undecodable entries and fetches reach swift-metrics")
    func published() async throws {
        let metrics = TestMetrics()
        let fixture = try HoardFixture {
            $0.metricsFactory = metrics
            $0.memoryCountLimit = 2
        }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("a", forKey: "a")
        _ = try await hoard.retrieve(String.self, forKey: "a")  // memory hit
        hoard.clearMemory()
        _ = try await hoard.retrieve(String.self, forKey: "a")  // disk hit
        _ = try await hoard.retrieve(String.self, forKey: "missing")  // miss
        try await hoard.store("b", forKey: "b")
        try await hoard.store("c", forKey: "c")  // evicts one from memory (limit 2)
        _ = try await hoard.value(forKey: "fetched") { "value" }  // a miss, then a fetch
        await #expect(throws: CancellationError.self) {
            _ = try await hoard.value(forKey: "failing") { () async throws -> String in throw CancellationError() }
        }

        func count(_ label: String, tier: String? = nil) throws -> Int64 {
            try metrics.expectCounter(label, [("cache", "test")] + (tier.map { [("tier", $0)] } ?? [])).totalValue
        }
        #expect(try count("hoard_hits_total", tier: "memory") == 1)
        #expect(try count("hoard_hits_total", tier: "disk") == 1)
        #expect(try count("hoard_misses_total", tier: "memory") == 4)  // the disk hit and three misses
        #expect(try count("hoard_misses_total", tier: "disk") == 3)
        #expect(try count("hoard_stores_total") == 4)
        #expect(try count("hoard_evictions_total", tier: "memory") == hoard.statistics.memoryEvictions)
        #expect(try count("hoard_evictions_total", tier: "memory") >= 1)
        #expect(try count("hoard_fetches_total") == 2)
        #expect(try count("hoard_fetch_failures_total") == 1)
        let durations = try metrics.expectTimer("hoard_fetch_duration_seconds", [("cache", "test")]).values
        #expect(durations.count == 2 && durations.allSatisfy { $0 >= 0 })
    }

    @Test("an entry that no longer decodes is counted")
    func undecodable() async throws {
        let metrics = TestMetrics()
        let fixture = try HoardFixture { $0.metricsFactory = metrics }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store(HoardUndecodableTests.ProfileV1(name: "Ada"), forKey: "p")
        fixture.hoard.clearMemory()
        #expect(try await fixture.hoard.retrieve(HoardUndecodableTests.ProfileV2.self, forKey: "p") == nil)
        #expect(try metrics.expectCounter("hoard_undecodable_entries_total", [("cache", "test")]).totalValue == 1)
    }

    @Test("metrics made with swift-metrics' no-op factory skip their handlers; any other factory gets every event")
    func noOpFactorySkipsHandlers() throws {
        let silent = HoardMetrics(cacheName: "c", tiers: [.memory, .disk], factory: NOOPMetricsHandler.instance)
        #expect(!silent.isRecording)
        let metrics = TestMetrics()
        let recording = HoardMetrics(cacheName: "c", tiers: [.memory, .disk], factory: metrics)
        #expect(recording.isRecording)
        recording.record(.hit(key: "k", tier: .disk))
        #expect(try metrics.expectCounter("hoard_hits_total", [("cache", "c"), ("tier", "disk")]).totalValue == 1)
        #expect(try metrics.expectCounter("hoard_misses_total", [("cache", "c"), ("tier", "memory")]).totalValue == 1)
    }
}
