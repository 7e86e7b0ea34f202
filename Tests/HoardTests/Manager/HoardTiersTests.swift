import Foundation
import Testing

@testable import HoardCore

/// The manager over an ordered list of byte tiers: memory, the disk, then a shared tier.
@Suite("Hoard: tiers")
struct HoardTiersTests {
    private func fixture(
        _ shared: DictionaryTier, function: String = #function, _ configure: (inout Hoard.Configuration) -> Void = { _ in }
    ) throws -> HoardFixture {
        try HoardFixture(function: function) {
            $0.tiers = [.disk, .custom(shared)]
            configure(&$0)
        }
    }

    @Test("a tier's failure is HoardError.tier with that tier's identifier and its own error; the disk's names the disk")
    func errorsNameTheirTier() async throws {
        let fixture = try HoardFixture { $0.tiers = [.disk, .custom(BrokenTier())] }
        defer { fixture.folder.remove() }
        do {
            try await fixture.hoard.store("v", forKey: "k")
            Issue.record("a store through a broken tier succeeded")
        } catch HoardError.tier(let tier, let underlying) {
            #expect(tier == "broken" && underlying is BrokenTier.Unavailable)
        }
        do {
            try await fixture.hoard.removeAll()
            Issue.record("removeAll through a broken tier succeeded")
        } catch HoardError.tier(let tier, _) {
            #expect(tier == "broken")
        }
        let diskFailure = HoardError.tier(.disk, underlying: DiskCacheError.notACache(path: "/x"))
        let brokenFailure = HoardError.tier("broken", underlying: BrokenTier.Unavailable())
        let diskError = diskFailure.diskError
        let brokenDiskError = brokenFailure.diskError
        let brokenDescription = brokenFailure.description
        #expect(diskError == .notACache(path: "/x"))
        #expect(brokenDiskError == nil)
        #expect(brokenDescription.hasPrefix("Cache tier broken: "))
    }

    @Test("a hit in the shared tier is copied into the disk and memory with its own dates, then served from memory")
    func hitIsCopiedForward() async throws {
        let shared = DictionaryTier()
        let fixture = try fixture(shared)
        defer { fixture.folder.remove() }
        let created = fixture.clock.now.addingTimeInterval(-100)
        let expires = fixture.clock.now.addingTimeInterval(500)
        shared.plant(CacheTierEntry.typed("from elsewhere", createdAt: created, expiresAt: expires), forKey: "k")

        let entry = try #require(try await fixture.hoard.entry(String.self, forKey: "k"))
        #expect(entry.value == "from elsewhere" && entry.source == "shared")
        #expect(entry.cachedAt == created && entry.expiresAt == expires)
        let onDisk = try #require(try await fixture.hoard.disk.get().entry(forKey: "k"))
        #expect(onDisk == shared.stored(forKey: "k"), "same bytes, same dates: the remaining expiry")
        let again = try await fixture.hoard.entry(String.self, forKey: "k")
        #expect(again?.source == .memory)
        fixture.hoard.clearMemory()
        #expect(try await fixture.hoard.entry(String.self, forKey: "k")?.source == .disk)
        #expect(shared.counts.reads == 1, "later reads stop before the shared tier")
        let statistics = fixture.hoard.statistics
        #expect(statistics.hits(in: "shared") == 1 && statistics.hits(in: .memory) == 1 && statistics.hits(in: .disk) == 1)
        #expect(statistics.misses(in: .memory) == 2 && statistics.misses(in: .disk) == 1 && statistics.misses == 0)
    }

    @Test("stores write through every tier; removals reach every tier")
    func writeThroughAndRemove() async throws {
        let shared = DictionaryTier()
        let fixture = try fixture(shared)
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("v", forKey: "a", expiry: .seconds(60))
        try await hoard.store("w", forKey: "b")
        #expect(try await hoard.disk.get().entry(forKey: "a") == shared.stored(forKey: "a"))
        #expect(shared.stored(forKey: "a")?.expiresAt == fixture.clock.now.addingTimeInterval(60))
        try await hoard.remove(forKey: "a")
        let removedFromDisk = try await hoard.disk.get().entry(forKey: "a")
        #expect(shared.stored(forKey: "a") == nil && removedFromDisk == nil)
        let removed = try await hoard.removeAll { $0 == "b" }
        #expect(removed == 1 && shared.keys.isEmpty)
        try await hoard.store("x", forKey: "c")
        try await hoard.removeAll()
        let afterRemoveAll = try await hoard.retrieve(String.self, forKey: "c")
        #expect(shared.keys.isEmpty && afterRemoveAll == nil)
    }

    @Test("an expired entry in the shared tier is a miss; one that no longer decodes is removed everywhere")
    func expiredAndUndecodable() async throws {
        let shared = DictionaryTier()
        let fixture = try fixture(shared)
        defer { fixture.folder.remove() }
        let now = fixture.clock.now
        shared.plant(CacheTierEntry.typed("stale", createdAt: now.addingTimeInterval(-10), expiresAt: now), forKey: "expired")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "expired") == nil)
        #expect(fixture.hoard.statistics.misses(in: "shared") == 1)
        shared.plant(
            CacheTierEntry(
                bytes: TypedPayload.wrap(Data([0xFF, 0xFE]), typeName: String.cacheTypeIdentifier), createdAt: now,
                expiresAt: nil), forKey: "garbled")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "garbled") == nil)
        #expect(shared.stored(forKey: "garbled") == nil && fixture.hoard.statistics.undecodableEntries == 1)
    }

    @Test("tiers need unique identifiers other than memory and fetch; only .disk may be the disk")
    func uniqueIdentifiers() throws {
        let lists: [[Hoard.Configuration.Tier]] = [
            [.disk, .custom(DictionaryTier()), .custom(DictionaryTier())],
            [.disk, .custom(DictionaryTier(identifier: .disk))],
            [.custom(DictionaryTier(identifier: .disk))],
            [.disk, .disk],
            [.custom(DictionaryTier(identifier: .memory))],
        ]
        for tiers in lists {
            #expect(throws: HoardError.self) { _ = try HoardFixture { $0.tiers = tiers } }
        }
    }

    @Test("without the disk in its tiers a cache keeps no files: values live in memory and the custom tier")
    func withoutDisk() async throws {
        let shared = DictionaryTier()
        let fixture = try HoardFixture { $0.tiers = [.custom(shared)] }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("value", forKey: "k")
        #expect(shared.stored(forKey: "k") != nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.hoard.directory.path))
        fixture.hoard.clearMemory()
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k") == "value")
        #expect(fixture.hoard.statistics.hits(in: "shared") == 1 && fixture.hoard.statistics.hits(in: .disk) == 0)
        do {
            _ = try fixture.hoard.diskSize()
            Issue.record("the disk size of a cache without a disk")
        } catch HoardError.tierNotConfigured(let tier) {
            #expect(tier == .disk)
        }
    }

    @Test("the disk is read in its place in the list: after a custom tier listed before it")
    func diskAfterCustomTier() async throws {
        let shared = DictionaryTier()
        let fixture = try HoardFixture { $0.tiers = [.custom(shared), .disk] }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("value", forKey: "k")
        fixture.hoard.clearMemory()
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k") == "value")
        let statistics = fixture.hoard.statistics
        #expect(statistics.hits(in: "shared") == 1 && statistics.hits(in: .disk) == 0)
        #expect(statistics.description.contains("1 shared"), "\(statistics)")
    }

    @Test("a disk hit shares the read's buffer with the value, and writing to the value changes no tier")
    func diskHitSharesItsBuffer() async throws {
        let shared = DictionaryTier()
        let fixture = try fixture(shared) { $0.memoryCountLimit = 1 }
        defer { fixture.folder.remove() }
        let original = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await fixture.hoard.store(original, forKey: "disk")
        try await fixture.hoard.store(Data("evicts the first from memory".utf8), forKey: "other")
        var fromDisk = try #require(try await fixture.hoard.retrieve(Data.self, forKey: "disk"))
        #expect(fromDisk == original && fromDisk.startIndex == 0)
        fromDisk[0] ^= 0xFF
        fromDisk.append(contentsOf: [1, 2, 3])
        #expect(try await fixture.hoard.retrieve(Data.self, forKey: "disk") == original)  // from memory
        try await fixture.hoard.store(Data("evicts it again".utf8), forKey: "other")
        #expect(try await fixture.hoard.retrieve(Data.self, forKey: "disk") == original)  // from disk
        // A hit in the shared tier is copied into the disk tier: the value is a copy of its own.
        shared.plant(
            CacheTierEntry(
                bytes: TypedPayload.wrap(original, typeName: Data.cacheTypeIdentifier), createdAt: fixture.clock.now,
                expiresAt: nil), forKey: "shared")
        var fromShared = try #require(try await fixture.hoard.retrieve(Data.self, forKey: "shared"))
        fromShared[0] ^= 0xFF
        #expect(shared.stored(forKey: "shared").map { TypedPayload.unwrap($0.bytes)?.payload } == original)
    }

    @Test("an unwrapped payload starts at index 0, shared or copied, and a copy leaves the bytes it came from alone")
    func unwrapSharesOnlyWhenAsked() throws {
        let payload = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
        let wrapped = TypedPayload.wrap(payload, typeName: "T")
        for sharing in [false, true] {
            var (name, unwrapped) = try #require(TypedPayload.unwrap(wrapped, sharingStorage: sharing))
            #expect(name == "T" && unwrapped == payload && unwrapped.startIndex == 0)
            if !sharing {
                unwrapped[0] = 0xAA
                #expect(TypedPayload.unwrap(wrapped)?.payload == payload)
            }
        }
        let small = TypedPayload.wrap(Data([1, 2, 3]), typeName: "T")
        #expect(TypedPayload.unwrap(small, sharingStorage: true)?.payload == Data([1, 2, 3]))
    }
}
