import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// The chain on its own: records read through the tiers in order, copied forward with their
/// dates, written through every tier before memory.
@Suite("TierChain")
struct TierChainTests {
    private let clock = TestClock()

    /// A chain over `tiers` (custom ones, or the disk in `folder`).
    private func chain(_ tiers: [Hoard.Configuration.Tier], folder: URL? = nil) -> TierChain {
        var configuration = Hoard.Configuration(name: "chain", directory: folder)
        configuration.tiers = tiers
        configuration.now = clock.closure
        return TierChain(configuration: configuration) { _ in }
    }

    private func fresh(_ now: Date) -> Freshness {
        Freshness(now: now, policy: .never, mark: nil)
    }

    @Test("a fresh hit in a later tier is copied into every tier before it, with the dates it was stored with")
    func freshHitCopiedForward() async throws {
        let (first, second, third) = (DictionaryTier(identifier: "a"), DictionaryTier(identifier: "b"), DictionaryTier(identifier: "c"))
        let chain = chain([.custom(first), .custom(second), .custom(third)])
        let now = clock.now
        let stored = CacheTierEntry.typed("v", createdAt: now.addingTimeInterval(-50), expiresAt: now.addingTimeInterval(100))
        third.plant(stored, forKey: "k")

        let hit = try #require(
            try await chain.hit(forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now), includingStale: false))
        #expect(hit.source == "c" && hit.isFresh && hit.payload == Data("v".utf8))
        #expect(hit.createdAt == stored.createdAt && hit.expiresAt == stored.expiresAt)
        #expect(first.stored(forKey: "k") == stored && second.stored(forKey: "k") == stored)

        let again = try await chain.hit(
            forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now), includingStale: false)
        #expect(again?.source == "a")
        #expect(third.counts.reads == 1, "the first tier answered the second read")
    }

    @Test("an expired entry is passed over, not copied; a fallback read returns it marked stale")
    func staleEntries() async throws {
        let (first, second) = (DictionaryTier(identifier: "a"), DictionaryTier(identifier: "b"))
        let chain = chain([.custom(first), .custom(second)])
        let now = clock.now
        second.plant(CacheTierEntry.typed("old", createdAt: now.addingTimeInterval(-100), expiresAt: now.addingTimeInterval(-1)), forKey: "k")

        #expect(
            try await chain.hit(
                forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now), includingStale: false) == nil)
        let stale = try #require(
            try await chain.hit(forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now), includingStale: true))
        #expect(!stale.isFresh && stale.payload == Data("old".utf8) && stale.source == "b")
        #expect(first.stored(forKey: "k") == nil, "a stale entry is not copied forward")
    }

    @Test("an entry of another type is a type mismatch naming both types")
    func typeMismatch() async throws {
        let tier = DictionaryTier(identifier: "a")
        let chain = chain([.custom(tier)])
        tier.plant(CacheTierEntry.typed("v", createdAt: clock.now, expiresAt: nil), forKey: "k")
        let error = await #expect(throws: HoardError.self) {
            try await chain.hit(forKey: "k", expecting: "Swift.Int", freshness: fresh(clock.now), includingStale: false)
        }
        guard case .typeMismatch(let key, let expected, let stored)? = error else {
            Issue.record("not a type mismatch: \(String(describing: error))")
            return
        }
        #expect(key == "k" && expected == "Swift.Int" && stored == String.cacheTypeIdentifier)
    }

    @Test("a write reaches every byte tier in order before memory; a tier that fails stops it there")
    func writesInOrder() async throws {
        let first = DictionaryTier(identifier: "a")
        let chain = chain([.custom(first), .custom(BrokenTier())])
        let record = StoredValue(value: "v", typeName: String.cacheTypeIdentifier, cachedAt: clock.now, expiresAt: nil)
        let written = CacheTierEntry.typed("v", createdAt: clock.now, expiresAt: nil)

        await #expect(throws: HoardError.self) {
            try await chain.write(written, forKey: "k", memory: (record, 1))
        }
        #expect(first.stored(forKey: "k") == written, "the tier before the failing one was written")
        #expect(chain.memoryRecord(forKey: "k") == nil, "memory is not written when a byte tier fails")

        let working = self.chain([.custom(DictionaryTier(identifier: "a"))])
        #expect(try await working.write(written, forKey: "k", memory: (record, 1)) == 0)
        #expect(working.memoryRecord(forKey: "k") === record)
        _ = try await working.write(written, forKey: "k", memory: nil)
        #expect(working.memoryRecord(forKey: "k") == nil, "a write without a decoded value drops memory's")
    }

    @Test("a first disk tier is read without suspending; a later tier's hit is copied into it")
    func immediateFirstTier() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let shared = DictionaryTier(identifier: "shared")
        let chain = chain([.disk, .custom(shared)], folder: folder.cacheURL)
        let now = clock.now
        let stored = CacheTierEntry.typed("v", createdAt: now.addingTimeInterval(-5), expiresAt: now.addingTimeInterval(60))
        shared.plant(stored, forKey: "k")

        #expect(try chain.immediateHit(forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now)) == nil)
        let hit = try await chain.hit(
            forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now), includingStale: false)
        #expect(hit?.source == "shared")
        let immediate = try #require(
            try chain.immediateHit(forKey: "k", expecting: String.cacheTypeIdentifier, freshness: fresh(now)))
        #expect(immediate.source == .disk && immediate.payload == Data("v".utf8))
        #expect(
            abs(immediate.createdAt.timeIntervalSince(stored.createdAt)) < 0.001
                && abs(immediate.expiresAt!.timeIntervalSince(stored.expiresAt!)) < 0.001)
    }

    @Test("removal reaches memory and every tier, even past a tier that fails, and reports the failure")
    func removalReachesEveryTier() async throws {
        let (first, last) = (DictionaryTier(identifier: "a"), DictionaryTier(identifier: "c"))
        let chain = chain([.custom(first), .custom(BrokenTier()), .custom(last)])
        first.plant(CacheTierEntry.typed("v", createdAt: clock.now, expiresAt: nil), forKey: "k")
        last.plant(CacheTierEntry.typed("v", createdAt: clock.now, expiresAt: nil), forKey: "k")
        _ = chain.remember(
            StoredValue(value: "v", typeName: String.cacheTypeIdentifier, cachedAt: clock.now, expiresAt: nil), cost: 1,
            forKey: "k")

        await #expect(throws: HoardError.self) { try await chain.remove(forKey: "k") }
        #expect(first.stored(forKey: "k") == nil && last.stored(forKey: "k") == nil)
        #expect(chain.memoryRecord(forKey: "k") == nil)
    }
}
