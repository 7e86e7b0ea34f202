import CoreMetrics
import Foundation
import HoardSystem
import Testing

@testable import HoardCore

/// The marks on their own: another machine's removal and expiry applied here once, the local mark
/// never moved back or past this machine's clock.
@Suite("CacheMarks")
struct CacheMarksTests {
    private let clock = TestClock()

    private struct Parts {
        let local: DictionaryTier
        let shared: MarksTier
        let chain: TierChain
        let marks: CacheMarks
    }

    private func parts() -> Parts {
        let local = DictionaryTier(identifier: "local")
        let shared = MarksTier()
        var configuration = Hoard.Configuration(name: "marks")
        configuration.tiers = [.custom(local), .custom(shared)]
        configuration.now = clock.closure
        let chain = TierChain(configuration: configuration) { _ in }
        let monitor = HoardMonitor(
            logger: configuration.logger,
            metrics: HoardMetrics(cacheName: "marks", tiers: [.memory], factory: NOOPMetricsHandler.instance),
            tierOrder: [.memory])
        let marks = CacheMarks(configuration: configuration, directory: nil, chain: chain, monitor: monitor)
        return Parts(local: local, shared: shared, chain: chain, marks: marks)
    }

    private func entry(createdAt: Date) -> CacheTierEntry {
        CacheTierEntry(bytes: Data("v".utf8), createdAt: createdAt, expiresAt: nil)
    }

    @Test("another machine's removeAll() empties memory and the local tiers of what is older, once")
    func removalAppliedOnce() async throws {
        let parts = parts()
        let now = clock.now
        parts.local.plant(entry(createdAt: now.addingTimeInterval(-60)), forKey: "old")
        parts.local.plant(entry(createdAt: now.addingTimeInterval(-1)), forKey: "new")
        _ = parts.chain.remember(
            StoredValue(value: "v", typeName: "T", cachedAt: now, expiresAt: nil), cost: 1, forKey: "memory")
        parts.shared.marks.withLock { $0.removedBefore = now.addingTimeInterval(-10) }

        await parts.marks.applySharedMarks()
        #expect(parts.local.keys == ["new"] && parts.chain.memoryRecord(forKey: "memory") == nil)
        #expect(parts.marks.current() == now.addingTimeInterval(-10))

        parts.local.plant(entry(createdAt: now.addingTimeInterval(-60)), forKey: "planted after")
        await parts.marks.applySharedMarks()
        #expect(parts.local.keys == ["new", "planted after"], "a mark already applied is not applied again")
    }

    @Test("a mark ahead of this machine's clock applies at this moment; an older one never moves the mark back")
    func markStaysWithinTheClock() async throws {
        let parts = parts()
        let now = clock.now
        parts.shared.marks.withLock { $0.expiredBefore = now.addingTimeInterval(3_600) }
        await parts.marks.applySharedMarks()
        #expect(parts.marks.current() == now)

        clock.advance(by: 10)
        parts.shared.marks.withLock { $0.expiredBefore = now.addingTimeInterval(-100) }
        await parts.marks.applySharedMarks()
        #expect(parts.marks.current() == now, "an older mark does not move it back")
    }

    @Test("expireAll() publishes to the other machines and moves the local mark to now")
    func expireAllPublishes() async throws {
        let parts = parts()
        clock.advance(by: 5)
        let mark = try await parts.marks.expireAll()
        #expect(mark == clock.now && parts.marks.current() == clock.now)
        #expect(parts.shared.published.withLock { $0 } == [clock.now])
    }
}

/// A shared tier that holds nothing but the marks it is given, and records what is published.
private final class MarksTier: SharedCacheTier {
    let identifier: CacheTierIdentifier = "shared"
    let marks = Lock(SharedCacheMarks())
    let published = Lock<[Date]>([])

    func entry(forKey key: String) async throws -> CacheTierEntry? { nil }
    func store(_ entry: CacheTierEntry, forKey key: String) async throws {}
    func remove(forKey key: String) async throws {}
    func removeAll() async throws {}
    func removeEntries(
        where shouldRemove: @escaping @Sendable (String, ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] { [] }
    func acquireFetchLease(forKey key: String, duration: Duration) async -> FetchLease { .unavailable }
    func releaseFetchLease(forKey key: String, token: String) async {}
    func isFetchLeaseHeld(forKey key: String) async -> Bool? { nil }
    func sharedMarks() async -> SharedCacheMarks? { marks.withLock { $0 } }
    func publishExpiration(before date: Date) async { published.withLock { $0.append(date) } }
}
