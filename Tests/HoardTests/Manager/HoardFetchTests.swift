import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

@Suite("Hoard fetching: cache policies")
struct HoardFetchTests {
    @Test("cacheElseFetch: fetches on a miss, then answers from memory and disk until the value expires")
    func cacheElseFetch() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        let first = try await hoard.entry(forKey: "k", expiry: .seconds(60), fetch: probe.fetch())
        #expect(first.value == "v1" && first.source == .fetch && first.age == 0 && !first.isStale)
        #expect(try await hoard.entry(forKey: "k", fetch: probe.fetch()).source == .memory)
        hoard.clearMemory()
        fixture.clock.advance(by: 59)
        let fromDisk = try await hoard.entry(forKey: "k", fetch: probe.fetch())
        #expect(fromDisk.value == "v1" && fromDisk.source == .disk && fromDisk.age == 59)
        #expect(probe.calls == 1)
        fixture.clock.advance(by: 1)
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v2")
        #expect(probe.calls == 2)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == "v2")
    }

    @Test("networkOnly: fetches every time and stores each result")
    func networkOnly() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let probe = FetchProbe()
        try await fixture.hoard.store("cached", forKey: "k")
        for expected in ["v1", "v2", "v3"] {
            #expect(try await fixture.hoard.value(forKey: "k", policy: .networkOnly, fetch: probe.fetch()) == expected)
            #expect(try await fixture.hoard.retrieve(String.self, forKey: "k") == expected)
        }
        #expect(probe.calls == 3)
    }

    @Test("cacheOnly: never fetches; a miss or an expired value throws notCached")
    func cacheOnly() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        await #expect(throws: HoardError.self) {
            try await hoard.value(forKey: "k", policy: .cacheOnly, fetch: probe.fetch())
        }
        do {
            _ = try await hoard.value(forKey: "k", policy: .cacheOnly, fetch: probe.fetch())
        } catch HoardError.notCached(let key) {
            #expect(key == "k")
        }
        try await hoard.store("cached", forKey: "k", expiry: .seconds(10))
        #expect(try await hoard.value(forKey: "k", policy: .cacheOnly, fetch: probe.fetch()) == "cached")
        fixture.clock.advance(by: 10)
        await #expect(throws: HoardError.self) {
            try await hoard.value(forKey: "k", policy: .cacheOnly, fetch: probe.fetch())
        }
        #expect(probe.calls == 0)
        #expect(HoardError.notCached(key: "k").description.contains("\"k\""))
    }

    @Test("networkElseCache: fetches; on failure serves the cached value, stale if expired; throws without one")
    func networkElseCache() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        probe.setFailing(true)
        await #expect(throws: FetchFailure.self) {
            try await hoard.value(forKey: "k", policy: .networkElseCache, fetch: probe.fetch())
        }
        probe.setFailing(false)
        let fetched = try await hoard.entry(
            forKey: "k", policy: .networkElseCache, expiry: .seconds(60), fetch: probe.fetch())
        #expect(fetched.value == "v2" && fetched.source == .fetch)
        probe.setFailing(true)
        let fresh = try await hoard.entry(forKey: "k", policy: .networkElseCache, fetch: probe.fetch())
        #expect(fresh.value == "v2" && fresh.source == .memory && !fresh.isStale)
        // Expired: memory drops it, the disk keeps it for this fallback.
        fixture.clock.advance(by: 61)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        let stale = try await hoard.entry(forKey: "k", policy: .networkElseCache, fetch: probe.fetch())
        #expect(stale.value == "v2" && stale.source == .disk && stale.isStale && stale.age == 61)
        // Another instance (another process) falls back on the same stale value.
        let other = try await fixture.reopened().entry(forKey: "k", policy: .networkElseCache, fetch: probe.fetch())
        #expect(other.value == "v2" && other.isStale)
        #expect(probe.calls == 5)
        #expect(fixture.hoard.statistics.cachedFallbacks == 2)
    }

    @Test("networkElseCache falls back on values expired by expireAll and by the expiration policy")
    func networkElseCacheAfterExpireAll() async throws {
        let fixture = try HoardFixture { $0.expirationPolicy = .olderThan(100) }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("old", forKey: "a")
        fixture.clock.advance(by: 1)
        try await hoard.expireAll()
        let failing = FetchProbe()
        failing.setFailing(true)
        let stale = try await hoard.entry(forKey: "a", policy: .networkElseCache, fetch: failing.fetch())
        #expect(stale.value == "old" && stale.isStale)
        fixture.clock.advance(by: 1)
        try await hoard.store("aging", forKey: "b")
        fixture.clock.advance(by: 100)
        let aged = try await hoard.entry(forKey: "b", policy: .networkElseCache, fetch: failing.fetch())
        #expect(aged.value == "aging" && aged.isStale)
    }

    @Test("cacheThenFetch: the stream yields the cached value, then the fetched one, which is stored")
    func cacheThenFetch() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        // Nothing cached: only the fetched value.
        var seen: [String] = []
        for try await value in hoard.values(forKey: "feed", fetch: probe.fetch()) { seen.append(value) }
        #expect(seen == ["v1"])
        // Cached: the cached value first, then the fresh one.
        var entries: [CacheEntry<String>] = []
        for try await entry in hoard.entries(forKey: "feed", fetch: probe.fetch()) { entries.append(entry) }
        #expect(entries.map(\.value) == ["v1", "v2"])
        #expect(entries.map(\.source) == [.memory, .fetch])
        #expect(try await hoard.retrieve(String.self, forKey: "feed") == "v2")
        // A failing fetch: the cached value, then the error.
        probe.setFailing(true)
        seen = []
        await #expect(throws: FetchFailure.self) {
            for try await value in hoard.values(forKey: "feed", fetch: probe.fetch()) { seen.append(value) }
        }
        #expect(seen == ["v2"])
        // value(forKey:policy: .cacheThenFetch) returns the fetched value.
        probe.setFailing(false)
        #expect(try await hoard.value(forKey: "feed", policy: .cacheThenFetch, fetch: probe.fetch()) == "v4")
        #expect(probe.calls == 4)
    }

    @Test("cacheThenFetch does not yield an expired cached value")
    func cacheThenFetchSkipsExpired() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("old", forKey: "feed", expiry: .seconds(5))
        fixture.clock.advance(by: 5)
        var seen: [String] = []
        for try await value in fixture.hoard.values(forKey: "feed", fetch: FetchProbe().fetch()) { seen.append(value) }
        #expect(seen == ["v1"])
    }

    @Test("a fetched value that cannot be stored is still returned, and the failure is logged")
    func storeFailureIsNotFatal() async throws {
        let recorder = LogRecorder()
        let fixture = try HoardFixture { $0.logger = recorder.logger() }
        defer { fixture.folder.remove() }
        let tooLong = String(repeating: "k", count: DiskCache.maximumKeyByteCount + 1)
        let probe = FetchProbe()
        #expect(try await fixture.hoard.value(forKey: tooLong, fetch: probe.fetch()) == "v1")
        #expect(try await fixture.hoard.value(forKey: tooLong, fetch: probe.fetch()) == "v2")
        #expect(recorder.lines(containing: "Cannot store the fetched value").count == 2)
        #expect(recorder.lines(containing: "Cannot store the fetched value").allSatisfy { $0.level == .warning })
    }

    @Test("a cached value of another type is a miss for cacheElseFetch (logged) and is replaced")
    func wrongTypeIsRefetched() async throws {
        let recorder = LogRecorder()
        let fixture = try HoardFixture { $0.logger = recorder.logger() }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store(42, forKey: "k")
        #expect(try await fixture.hoard.value(forKey: "k", fetch: FetchProbe().fetch()) == "v1")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k") == "v1")
        #expect(recorder.lines(containing: "Cannot read the cached value").count == 1)
        await #expect(throws: HoardError.self) {
            try await fixture.hoard.value(forKey: "k", policy: .cacheOnly) { 0 }
        }
    }
}
