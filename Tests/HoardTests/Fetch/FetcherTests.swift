import CoreMetrics
import Foundation
import HoardSystem
import HoardTestSupport
import Logging
import Testing

@testable import HoardCore

/// The fetcher on its own: one run per key, every waiter given its outcome, only the current
/// fetch stores, the leases' second look at the tiers.
@Suite("Fetcher")
struct FetcherTests {
    private func fetcher(leaseDirectory: URL? = nil) -> Fetcher {
        let configuration = Hoard.Configuration(name: "fetcher")
        let monitor = HoardMonitor(
            logger: configuration.logger,
            metrics: HoardMetrics(cacheName: "fetcher", tiers: [.memory], factory: NOOPMetricsHandler.instance),
            tierOrder: [.memory])
        return Fetcher(configuration: configuration, leaseDirectory: leaseDirectory, sharedTier: nil, monitor: monitor)
    }

    /// A fetch that counts its runs and its stores, and waits for `gate` before producing `value`.
    private final class Probe: Sendable {
        let gate = Gate()
        let runs = Lock(0)
        let stores = Lock(0)

        func produce(_ value: String) -> @Sendable () async throws -> Fetcher.Produced {
            { [self] in
                runs.withLock { $0 += 1 }
                try await gate.wait()
                return (value, { [self] () async throws(HoardError) -> Hoard.Written? in
                    stores.withLock { $0 += 1 }
                    return (Date(timeIntervalSince1970: 1), nil, Data(value.utf8))
                })
            }
        }
    }

    @Test("concurrent callers of one key share one run and its outcome; the value is stored once")
    func oneRunPerKey() async throws {
        let fetcher = fetcher()
        let probe = Probe()
        try await withThrowingTaskGroup(of: FetchOutcome.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await fetcher.run(
                        forKey: "k", typeName: String.cacheTypeIdentifier, isEncoded: false, cached: nil,
                        produce: probe.produce("v"))
                }
            }
            #expect(await eventually { fetcher.flights.waiterCount(forKey: "k") == 8 })
            probe.gate.open()
            for try await outcome in group {
                #expect(outcome.value.value as? String == "v" && outcome.source == .fetch)
                #expect(outcome.value.cachedAt == Date(timeIntervalSince1970: 1), "the stored dates are handed over")
            }
        }
        #expect(probe.runs.withLock { $0 } == 1 && probe.stores.withLock { $0 } == 1)
    }

    @Test("a fetch forgotten while it runs hands its value to its callers but does not store it")
    func forgottenFetchDoesNotStore() async throws {
        let fetcher = fetcher()
        let probe = Probe()
        let running = Task {
            try await fetcher.run(
                forKey: "k", typeName: String.cacheTypeIdentifier, isEncoded: false, cached: nil,
                produce: probe.produce("old"))
        }
        #expect(await eventually { probe.runs.withLock { $0 } == 1 })
        fetcher.forget("k")
        probe.gate.open()
        let outcome = try await running.value
        #expect(outcome.value.value as? String == "old" && outcome.encoding == nil)
        #expect(probe.stores.withLock { $0 } == 0)
    }

    @Test("under the machine's lease, a value another process stored meanwhile is returned instead of fetching")
    func leaseReadsTheTiersAgain() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let fetcher = fetcher(leaseDirectory: folder.url)
        let probe = Probe()
        probe.gate.open()
        let stored = FetchOutcome(
            value: StoredValue(value: "theirs", typeName: String.cacheTypeIdentifier, cachedAt: Date(), expiresAt: nil),
            source: .disk)
        let outcome = try await fetcher.run(
            forKey: "k", typeName: String.cacheTypeIdentifier, isEncoded: false, cached: { stored },
            produce: probe.produce("ours"))
        #expect(outcome.value.value as? String == "theirs" && outcome.source == .disk)
        #expect(probe.runs.withLock { $0 } == 0)
    }

    @Test("a failed fetch's error reaches every waiter, and the next call runs a new fetch")
    func errorsAreShared() async throws {
        struct Failure: Error {}
        let fetcher = fetcher()
        let runs = Lock(0)
        let gate = Gate()
        let failing: @Sendable () async throws -> Fetcher.Produced = {
            runs.withLock { $0 += 1 }
            try await gate.wait()
            throw Failure()
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do {
                        _ = try await fetcher.run(
                            forKey: "k", typeName: "T", isEncoded: false, cached: nil, produce: failing)
                        return false
                    } catch {
                        return error is Failure
                    }
                }
            }
            #expect(await eventually { fetcher.flights.waiterCount(forKey: "k") == 3 })
            gate.open()
            for try await failed in group { #expect(failed) }
        }
        #expect(runs.withLock { $0 } == 1)
        await #expect(throws: Failure.self) {
            try await fetcher.run(forKey: "k", typeName: "T", isEncoded: false, cached: nil, produce: failing)
        }
        #expect(runs.withLock { $0 } == 2)
    }
}
