import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Hoard rules: expiration, insertion, off switch")
struct HoardRulesTests {
    @Test("an expiration policy per cache makes values older than its age misses, on top of their expiry")
    func expirationPolicyPerCache() async throws {
        let fixture = try HoardFixture { $0.expirationPolicy = .olderThan(60) }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v1")
        fixture.clock.advance(by: 59)
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v1")
        hoard.clearMemory()
        #expect(try await hoard.retrieve(String.self, forKey: "k") == "v1")
        fixture.clock.advance(by: 1)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        hoard.clearMemory()
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v2")
        // The per-entry expiry still applies when it is shorter.
        try await hoard.store("short", forKey: "s", expiry: .seconds(10))
        fixture.clock.advance(by: 10)
        #expect(try await hoard.retrieve(String.self, forKey: "s") == nil)
    }

    @Test("an expiration policy per call replaces the cache's for that call only; expired values stay stored")
    func expirationPolicyPerCall() async throws {
        let fixture = try HoardFixture { $0.expirationPolicy = .olderThan(10) }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        try await hoard.store("old", forKey: "k")
        fixture.clock.advance(by: 20)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)  // the cache's 10 s
        // A call that accepts 100 s still finds it: an expired read does not delete.
        #expect(try await hoard.value(forKey: "k", expirationPolicy: .olderThan(100), fetch: probe.fetch()) == "old")
        hoard.clearMemory()
        #expect(
            try await hoard.value(forKey: "k", policy: .cacheOnly, expirationPolicy: .never, fetch: probe.fetch())
                == "old")
        #expect(probe.calls == 0)
        // A call that accepts 20 s fetches.
        #expect(try await hoard.value(forKey: "k", expirationPolicy: .olderThan(20), fetch: probe.fetch()) == "v1")
        #expect(try await hoard.retrieve(String.self, forKey: "k") == "v1")
    }

    @Test("expireAll expires every value in memory and on disk without touching the entries")
    func expireAll() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        for index in 0..<5 { try await hoard.store("value \(index)", forKey: "k\(index)") }
        let before = snapshot(of: fixture.folder.cacheURL)
        let recordsBefore = try (0..<5).map { try IndexSurgery.record(in: try hoard.disk.get(), key: "k\($0)") }
        #expect(recordsBefore.allSatisfy { $0 != nil })
        fixture.clock.advance(by: 1)
        try await hoard.expireAll()
        for index in 0..<5 { #expect(try await hoard.retrieve(String.self, forKey: "k\(index)") == nil) }
        hoard.clearMemory()
        for index in 0..<5 { #expect(try await hoard.retrieve(String.self, forKey: "k\(index)") == nil) }
        // Values stored afterwards are fresh.
        fixture.clock.advance(by: 1)
        try await hoard.store("new", forKey: "k0")
        #expect(try await hoard.retrieve(String.self, forKey: "k0") == "new")
        // The entries were not read or rewritten: the same files, the same bytes, plus the mark.
        var after = snapshot(of: fixture.folder.cacheURL)
        after.removeValue(forKey: ExpirationMark.fileName)
        for index in 1..<5 {
            #expect(try IndexSurgery.record(in: try hoard.disk.get(), key: "k\(index)") == recordsBefore[index])
        }
        for (path, bytes) in before where !path.hasSuffix(try DiskCache.fileName(forKey: "k0")) {
            #expect(after[path] == bytes, "\(path)")
        }
        let mark = try String(
            contentsOf: fixture.folder.cacheURL.appending(path: ExpirationMark.fileName), encoding: .utf8)
        #expect(
            Double(mark.trimmingCharacters(in: .whitespacesAndNewlines))
                == fixture.clock.now.addingTimeInterval(-1).timeIntervalSinceReferenceDate)
    }

    @Test("another instance on the same folder sees expireAll through the mark file")
    func expireAllAcrossInstances() async throws {
        let fixture = try HoardFixture { $0.expirationMarkRefreshInterval = 0 }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("value", forKey: "k")
        let other = try fixture.reopened()
        #expect(try await other.retrieve(String.self, forKey: "k") == "value")  // now in its memory too
        fixture.clock.advance(by: 1)
        try await fixture.hoard.expireAll()
        #expect(try await other.retrieve(String.self, forKey: "k") == nil)
    }

    @Test("another process sees expireAll, and this one sees another process's")
    func expireAllAcrossProcesses() async throws {
        let fixture = try HoardFixture { $0.expirationMarkRefreshInterval = 0 }
        defer { fixture.folder.remove() }
        let path = fixture.folder.cacheURL.path(percentEncoded: false)
        try await fixture.hoard.store("value", forKey: "k")
        #expect(try await StressChild.run(["hoard-get", path, "k"]).output == "value\n")
        fixture.clock.advance(by: 1)
        try await fixture.hoard.expireAll()
        #expect(try await StressChild.run(["hoard-get", path, "k"]).output == "nil\n")
        try await fixture.hoard.store("again", forKey: "k2")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k2") == "again")
        // The child's clock is the real one: move this one past it, or its mark lies in the future.
        let child = try await StressChild.run(["hoard-expire-all", path])
        #expect(child.status == 0 && child.output == "expired\n")
        fixture.clock.advance(by: Date().timeIntervalSince(fixture.clock.now) + 60)
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k2") == nil)
    }

    @Test("a mark file ahead of the clock is taken as now and rewritten; values stored later are fresh")
    func futureMarkFile() async throws {
        let fixture = try HoardFixture { $0.expirationMarkRefreshInterval = 0 }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("old", forKey: "old")
        fixture.clock.advance(by: 1)
        // What an older version wrote from a shared mark a day ahead.
        let markURL = fixture.folder.cacheURL.appending(path: ExpirationMark.fileName)
        let future = fixture.clock.now.addingTimeInterval(86_400)
        try Data("\(future.timeIntervalSinceReferenceDate)\n".utf8).write(to: markURL)
        let reopened = try fixture.reopened()
        #expect(try await reopened.retrieve(String.self, forKey: "old") == nil, "stored before the mark was seen")
        let rewritten = try String(contentsOf: markURL, encoding: .utf8)
        #expect(Double(rewritten.trimmingCharacters(in: .whitespacesAndNewlines)) == fixture.clock.now.timeIntervalSinceReferenceDate)
        fixture.clock.advance(by: 1)
        try await reopened.store("new", forKey: "new")
        reopened.clearMemory()
        #expect(try await reopened.retrieve(String.self, forKey: "new") == "new")
        #expect(try await fixture.reopened().retrieve(String.self, forKey: "new") == "new", "and in the next process")
    }

    @Test("expireAll never writes a mark ahead of the clock")
    func markNeverAhead() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        try await fixture.hoard.expireAll()
        let mark = try String(
            contentsOf: fixture.folder.cacheURL.appending(path: ExpirationMark.fileName), encoding: .utf8)
        #expect(Double(mark.trimmingCharacters(in: .whitespacesAndNewlines))! <= fixture.clock.now.timeIntervalSinceReferenceDate)
    }

    @Test("an AsyncSequence of events triggers expireAll; cancelling the task stops it")
    func expireAllFromSequence() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let events = hoard.events()
        let (signOuts, signOut) = AsyncStream.makeStream(of: String.self)
        let trigger = hoard.expireAll(whenever: signOuts)
        try await hoard.store("secret", forKey: "k")
        fixture.clock.advance(by: 1)
        signOut.yield("ada")
        let event = await nextEvent(in: events) { if case .expiredAll = $0 { true } else { false } }
        if case .expiredAll(let date)? = event { #expect(date == fixture.clock.now) } else { Issue.record("no event") }
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        trigger.cancel()
        await trigger.value
    }

    @Test("a NotificationCenter notification triggers expireAll; cancelling the task removes the observer")
    func expireAllFromNotification() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let center = NotificationCenter()
        let name = Notification.Name("HoardTests.signOut")
        let events = hoard.events()
        let trigger = hoard.expireAll(onNotificationNamed: name, center: center)
        try await hoard.store("secret", forKey: "k")
        fixture.clock.advance(by: 1)
        center.post(name: name, object: nil)
        #expect(await nextEvent(in: events) { if case .expiredAll = $0 { true } else { false } } != nil)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        trigger.cancel()
        await trigger.value
    }

    @Test("the insertion policy decides what is stored: images over 30 KB are skipped")
    func insertionPolicy() async throws {
        let fixture = try HoardFixture {
            $0.insertionPolicy = InsertionPolicy { !($0.value is Image) || $0.byteCount <= 30 * 1024 }
        }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let small = try EncodingTests.pattern(.rgb8, width: 16, height: 16)
        let large = try Self.noise(width: 256, height: 256)
        #expect(try large.jpegData(quality: fixture.hoard.configuration.jpegQuality).count > 30 * 1024)
        try await hoard.store(small, forKey: "small")
        try await hoard.store(large, forKey: "large")
        #expect(try await hoard.retrieve(Image.self, forKey: "small") != nil)
        #expect(try await hoard.retrieve(Image.self, forKey: "large") == nil)
        // Refusing a new value removes the old one under that key.
        try await hoard.store(large, forKey: "small")
        #expect(try await hoard.retrieve(Image.self, forKey: "small") == nil)
        hoard.clearMemory()
        #expect(try await hoard.retrieve(Image.self, forKey: "small") == nil)
        // Fetched values too: the caller gets the value, nothing is kept, so each call fetches.
        let probe = FetchProbe()
        for _ in 0..<2 {
            #expect(try await hoard.value(forKey: "fetched") { try await probe.call { _ in large } } == large)
        }
        #expect(probe.calls == 2)
        #expect(hoard.statistics.refusedStores == 4)
        // Other values are stored as usual.
        try await hoard.store(Data(count: 100 * 1024), forKey: "blob")
        #expect(try await hoard.retrieve(Data.self, forKey: "blob")?.count == 100 * 1024)
    }

    @Test("maximumByteCount stores values up to the limit")
    func maximumByteCount() async throws {
        let fixture = try HoardFixture { $0.insertionPolicy = .maximumByteCount(10) }
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("0123456789", forKey: "ten")
        try await fixture.hoard.store("0123456789A", forKey: "eleven")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "ten") == "0123456789")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "eleven") == nil)
    }

    /// What an app's code does with a cache; its results must not depend on whether caching is on.
    static func appScenario(_ hoard: Hoard, probe: FetchProbe) async throws -> [String] {
        var results: [String] = []
        let load: @Sendable (String) async throws -> String = { name in try await probe.call { _ in "page:\(name)" } }
        let cachedLoad = hoard.memoize(load, namespace: "page")
        for name in ["home", "about", "home", "home"] {
            results.append(try await cachedLoad(name))
            results.append(try await hoard.value(forKey: "doc/\(name)") { try await load(name) })
        }
        results.append(try await hoard.value(forKey: "doc/home", policy: .networkOnly) { try await load("home") })
        var latest: String?
        for try await value in hoard.values(forKey: "doc/about", fetch: { try await load("about") }) {
            latest = value  // the cached value first when there is one: keep the last
        }
        results.append(latest ?? "none")
        return results
    }

    @Test("with caching off every call fetches and the results are the same", arguments: [true, false])
    func offSwitch(cachingEnabled: Bool) async throws {
        let fixture = try HoardFixture { $0.isCachingEnabled = cachingEnabled }
        defer { fixture.folder.remove() }
        let probe = FetchProbe()
        let results = try await Self.appScenario(fixture.hoard, probe: probe)
        let expected =
            ["page:home", "page:home", "page:about", "page:about"]
            + Array(repeating: "page:home", count: 5) + ["page:about"]
        #expect(results == expected)
        #expect(probe.calls == (cachingEnabled ? 6 : 10))
        try await fixture.hoard.store("x", forKey: "stored")
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "stored") == (cachingEnabled ? "x" : nil))
        if cachingEnabled {
            #expect(try await fixture.hoard.value(forKey: "stored", policy: .cacheOnly) { "fetched" } == "x")
        } else {
            await #expect(throws: HoardError.self) {
                try await fixture.hoard.value(forKey: "stored", policy: .cacheOnly) { "fetched" }
            }
        }
        let statistics = fixture.hoard.statistics
        if cachingEnabled {
            #expect(statistics.hits > 0 && statistics.stores > 0 && statistics.coalescedFetches == 0)
        } else {
            #expect(statistics.hits + statistics.misses + statistics.stores == 0 && statistics.fetches == 10)
        }
        #expect(((try? fixture.hoard.disk.get().keys()) ?? []).isEmpty != cachingEnabled)
    }

    // MARK: - Helpers

    /// An RGB image of pseudo-random pixels: it compresses badly.
    static func noise(width: Int, height: Int) throws -> Image {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let pixels = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try Image(width: width, height: height, format: .rgb8, pixels: pixels)
    }

    /// Every regular file under `root` with its bytes, but the index and its log, which change
    /// while they are read (`Data(contentsOf:)` leaks its buffer under LeakSanitizer when a file
    /// grows as it reads).
    func snapshot(of root: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for path in regularFiles(under: root) where !path.hasPrefix(DiskIndex.fileName) {
            files[path] = try? TestFiles.read(root.appending(path: path))
        }
        return files
    }
}
