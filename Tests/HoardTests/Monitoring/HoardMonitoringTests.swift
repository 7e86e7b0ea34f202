import Foundation
import HoardTestSupport
import Logging
import Testing

@testable import HoardCore

@Suite("Hoard monitoring: logs, statistics, events")
struct HoardMonitoringTests {
    @Test("hits, misses, stores and evictions are logged at debug; corrupt entries and failed fetches warn")
    func logging() async throws {
        let recorder = LogRecorder()
        let fixture = try HoardFixture {
            $0.logger = recorder.logger()
            $0.memoryCountLimit = 1
            $0.memoryEvictionPolicy = .lru
        }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        _ = try await hoard.value(forKey: "a", fetch: probe.fetch())
        _ = try await hoard.value(forKey: "a", fetch: probe.fetch())
        try await hoard.store("b", forKey: "b")
        func debugLines(_ text: String) -> Int {
            recorder.lines(containing: text).filter { $0.level == .debug }.count
        }
        #expect(debugLines(#"miss "a""#) == 1)
        #expect(debugLines(#"fetch started for "a""#) == 1)
        #expect(debugLines(#"stored "a" (2 bytes)"#) == 1)
        #expect(debugLines(#"hit "a" in memory"#) == 1)
        #expect(debugLines("evicted 1 from memory") == 1)
        // A damaged entry (kept inside the index): a miss, removed, and a warning.
        try IndexSurgery.setRecord(in: try hoard.disk.get(), key: "b", to: Array("not an entry".utf8))
        hoard.clearMemory()
        #expect(try await hoard.retrieve(String.self, forKey: "b") == nil)
        #expect(recorder.lines(containing: "Removed damaged disk cache entry").map(\.level) == [.warning])
        probe.setFailing(true)
        _ = try? await hoard.value(forKey: "c", fetch: probe.fetch())
        let failures = recorder.lines(containing: "Fetch failed")
        #expect(failures.map(\.level) == [.warning])
        #expect(failures.first?.metadata["key"] == "c")
    }

    @Test("the library never prints: logging goes through swift-log")
    func noPrint() throws {
        var offenders: [String] = []
        let folders = ["Sources/HoardCore", "Sources/HoardImage", "Sources/Hoard"].map {
            TestFiles.repositoryRoot.appending(path: $0)
        }
        #expect(folders.allSatisfy { !regularFiles(under: $0).isEmpty })
        for sources in folders {
            offenders += try printCalls(under: sources)
        }
        #expect(offenders.isEmpty)
    }

    /// The lines under `sources` that call `print`, `debugPrint` or `dump`.
    private func printCalls(under sources: URL) throws -> [String] {
        var offenders: [String] = []
        for file in regularFiles(under: sources) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if code.contains(#/(^|[^A-Za-z0-9_.])(print|debugPrint|dump)\(/#) {
                    offenders.append("\(file):\(number + 1)")
                }
            }
        }
        return offenders
    }

    @Test("statistics count hits and misses per tier, stores, evictions, fetches and bytes")
    func statistics() async throws {
        let fixture = try HoardFixture {
            $0.memoryCountLimit = 2
            $0.memoryEvictionPolicy = .lru
        }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe()
        _ = try await hoard.value(forKey: "a", fetch: probe.fetch())  // miss in both tiers, fetch, store
        _ = try await hoard.value(forKey: "a", fetch: probe.fetch())  // memory hit
        hoard.clearMemory()
        _ = try await hoard.value(forKey: "a", fetch: probe.fetch())  // memory miss, disk hit
        try await hoard.store("b", forKey: "b")
        try await hoard.store("c", forKey: "c")  // evicts "a" from memory
        _ = try await hoard.retrieve(String.self, forKey: "zzz")  // miss in both tiers
        let statistics = hoard.statistics
        #expect(statistics.memoryHits == 1 && statistics.memoryMisses == 3)
        #expect(statistics.hits(in: .disk) == 1 && statistics.misses(in: .disk) == 2)
        #expect(statistics.hits == 2 && statistics.misses == 2 && statistics.hitRatio == 0.5)
        #expect(statistics.stores == 3 && statistics.refusedStores == 0)
        #expect(statistics.memoryEvictions == 1 && statistics.evictions(in: .disk) == 0)
        #expect(statistics.fetches == 1 && statistics.coalescedFetches == 0 && statistics.failedFetches == 0)
        #expect(statistics.memoryCount == 2 && statistics.memoryBytes == 2)
        #expect(statistics.diskBytes == (try hoard.disk.get().totalSize))
        #expect(statistics.description.contains("2 hits (1 memory, 1 disk), 2 misses, 3 stores"))
    }

    @Test("disk trims count as evictions, and the disk byte count is known before any write")
    func diskEvictions() async throws {
        let fixture = try HoardFixture { $0.diskSizeLimit = 8 * 1024 }
        defer { fixture.folder.remove() }
        let events = fixture.hoard.events()
        for index in 0..<20 { try await fixture.hoard.store(Data(count: 1_000), forKey: "blob \(index)") }
        let statistics = fixture.hoard.statistics
        #expect(statistics.evictions(in: .disk) > 0)
        #expect(statistics.diskBytes <= 8 * 1024)
        let evicted = await nextEvent(in: events) { if case .evicted(.disk, _) = $0 { true } else { false } }
        #expect(evicted != nil)
        // A fresh instance on the same folder reports the bytes already there.
        let reopened = try fixture.reopened()
        #expect(reopened.statistics.diskBytes == statistics.diskBytes)
    }

    @Test("the event stream reports what the cache does, in order")
    func events() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let events = hoard.events()
        _ = try await hoard.value(forKey: "k", fetch: FetchProbe().fetch())
        _ = try await hoard.value(forKey: "k", fetch: FetchProbe().fetch())
        try await hoard.remove(forKey: "k")
        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if seen.count == 6 { break }
        }
        #expect(
            seen == [
                #"miss "k""#, #"fetch started for "k""#, #"fetch succeeded for "k""#, #"stored "k" (2 bytes)"#,
                #"hit "k" in memory"#, #"removed "k""#,
            ])
    }

    @Test("a disk hit that promotes into a full memory tier reports the eviction, then the hit, once each")
    func diskHitEvictions() async throws {
        let fixture = try HoardFixture {
            $0.memoryCountLimit = 1
            $0.memoryEvictionPolicy = .lru
        }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("a", forKey: "a")
        try await hoard.store("b", forKey: "b")  // evicts "a" from memory
        let events = hoard.events()
        #expect(try await hoard.retrieve(String.self, forKey: "a") == "a")  // from disk; evicts "b"
        #expect(try await hoard.entry(String.self, forKey: "b")?.value == "b")  // from disk; evicts "a"
        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if seen.count == 4 { break }
        }
        #expect(seen == ["evicted 1 from memory", #"hit "a" in disk"#, "evicted 1 from memory", #"hit "b" in disk"#])
        let statistics = hoard.statistics
        #expect(statistics.hits(in: .disk) == 2 && statistics.memoryMisses == 2 && statistics.memoryEvictions == 3)
    }

    @Test("a per-key stream gets that key's events and the cache-wide ones")
    func eventsForKey() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let events = hoard.events(forKey: "mine")
        try await hoard.store("x", forKey: "other")
        try await hoard.store("y", forKey: "mine")
        _ = try await hoard.retrieve(String.self, forKey: "other")
        fixture.clock.advance(by: 1)
        try await hoard.expireAll()
        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if case .expiredAll = event { break }
        }
        #expect(seen.count == 2)
        #expect(seen.first == #"stored "mine" (1 bytes)"#)
        #expect(seen.last?.hasPrefix("expired every value stored before") == true)
    }

    @Test("event streams end when the Hoard goes away")
    func streamsEnd() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var hoard: Hoard? = try Hoard(configuration: .init(name: "ending", directory: folder.cacheURL))
        let events = try #require(hoard).events()
        hoard = nil
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 0)
    }
}
