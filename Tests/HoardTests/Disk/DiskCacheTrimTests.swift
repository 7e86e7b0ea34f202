import Foundation
import HoardTestSupport
import HoardSystem
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("DiskCache size limit, recency and temporary files")
struct DiskCacheTrimTests {
    /// Bytes of an entry file with a 2-character key and a 1000-byte value.
    static let entryFileSize = 48 + 2 + 1000

    /// Two lowercase hex digits, so that every entry file has the same size.
    private static func twoCharacterKey(_ value: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[value / 16 % 16], digits[value % 16]])
    }

    private func modificationDate(_ path: String) throws -> Date {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    @Test("Past the limit, least recently used entries go first, down to the low-water mark")
    func leastRecentlyUsedFirst() throws {
        let fixture = try DiskCacheFixture(sizeLimit: 10 * Self.entryFileSize)
        defer { fixture.remove() }
        for index in 0..<10 {
            try fixture.cache.store(Data(repeating: UInt8(index), count: 1000), forKey: "k\(index)")
            fixture.clock.advance(by: 100)
        }
        #expect(fixture.files.count == 10)  // exactly at the limit: nothing removed
        _ = try fixture.cache.data(forKey: "k0")  // now the most recently used
        fixture.clock.advance(by: 100)
        _ = try fixture.cache.data(forKey: "k1")
        fixture.clock.advance(by: 100)
        try fixture.cache.store(Data(repeating: 10, count: 1000), forKey: "kx")
        fixture.cache.waitForScheduledTrims()
        // 11 entries > limit; down to 80% = 8 entries: the three least recently used (k2, k3, k4) go.
        let expected = ["k0", "k1", "kx"] + (5...9).map { "k\($0)" }
        #expect(Set(try fixture.cache.keys()) == Set(expected))
        #expect(try fixture.cache.totalSize == 8 * Self.entryFileSize)
        // The writer's removal, and maybe the queue's trim a store before it scheduled: three in all.
        let removed = fixture.log.lines(containing: "Trimmed disk cache").compactMap { $0.metadata["removed"].flatMap { Int("\($0)") } }
        #expect(removed.reduce(0, +) == 3, "\(removed)")
    }

    @Test("A read marks the entry used at most once per recencyUpdateInterval")
    func throttledRecency() throws {
        let fixture = try DiskCacheFixture(recencyUpdateInterval: 60)
        defer { fixture.remove() }
        let stored = fixture.clock.now
        try fixture.cache.store(Data([1]), forKey: "k")
        // Recency lives in the index row; the file is not touched.
        let path = try fixture.entryPath("k")
        let lastUsed = { try #require(try fixture.cache.entryInfos().first { $0.key == "k" }).lastUsedDate }
        #expect(abs(try lastUsed().timeIntervalSince(stored)) < 0.001)
        fixture.clock.advance(by: 59)
        _ = try fixture.cache.data(forKey: "k")
        #expect(abs(try lastUsed().timeIntervalSince(stored)) < 0.001)
        fixture.clock.advance(by: 1)
        _ = try fixture.cache.data(forKey: "k")
        #expect(abs(try lastUsed().timeIntervalSince(fixture.clock.now)) < 0.001)
        #expect(abs(try modificationDate(path).timeIntervalSince(stored)) < 0.001)
        // A miss or listing does not touch anything.
        fixture.clock.advance(by: 600)
        _ = try fixture.cache.keys()
        _ = try fixture.cache.data(forKey: "absent")
        #expect(abs(try lastUsed().timeIntervalSince(stored.addingTimeInterval(60))) < 0.001)
    }

    @Test("The limit holds while writing, with amortised trims (not one per write)")
    func enforcedWhileRunning() throws {
        let limit = 100 * Self.entryFileSize
        let fixture = try DiskCacheFixture(sizeLimit: limit, rescanInterval: 3600)
        defer { fixture.remove() }
        for index in 0..<500 {
            try fixture.cache.store(Data(repeating: 1, count: 1000), forKey: Self.twoCharacterKey(index % 256))
            if index % 50 == 0 {
                #expect(try fixture.cache.totalSize <= limit)
            }
            fixture.clock.advance(by: 1)
        }
        #expect(try fixture.cache.totalSize <= limit)
        // Each time the limit is passed, the writer removes entries down to the mark.
        let trims = fixture.log.lines(containing: "Trimmed disk cache").filter { $0.metadata["batch"] != nil }.count
        // 256 distinct keys of 1050 bytes, a 100-entry limit and an 80-entry low-water mark:
        // a trim every ~20 new entries, not one per write.
        #expect(trims > 5 && trims < 40, "trims: \(trims)")
    }

    @Test("Bytes written by another instance (another process) count at the next write: the count is shared")
    func otherWritersCount() throws {
        let limit = 50 * Self.entryFileSize
        let fixture = try DiskCacheFixture(sizeLimit: limit, rescanInterval: 60)
        defer { fixture.remove() }
        try fixture.cache.store(Data(repeating: 0, count: 1000), forKey: "aa")  // first write: initial scan
        let other = try DiskCache(
            directory: fixture.folder.cacheURL, configuration: fixture.configuration(sizeLimit: 1 << 30))
        for index in 0..<100 {
            try other.store(Data(repeating: 2, count: 1000), forKey: String(index / 10) + String(index % 10))
        }
        try fixture.cache.store(Data(repeating: 0, count: 1000), forKey: "ab")
        fixture.cache.waitForScheduledTrims()
        // The other instance's bytes are in the shared count: this write found the cache over
        // its limit and trimmed it, without waiting for a rescan.
        #expect(fixture.files.count < 102)
        #expect(try fixture.cache.totalSize <= fixture.cache.configuration.lowWaterMark)
        #expect(try fixture.cache.data(forKey: "ab") != nil)  // the newest survives
    }

    @Test("With a rescan interval of 0, instances writing from many threads leave the folder within the limit")
    func zeroRescanIntervalHoldsTheLimit() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // No low-water slack: a single write no scan saw would show as bytes over the limit.
        // Six threads trimming after every write keep the write lock busy.
        let configuration = DiskCache.Configuration(
            sizeLimit: 16 * 1024, lowWaterMarkRatio: 1, recencyUpdateInterval: 0, rescanInterval: 0
        ).waitingLongForTheWriteLock()
        let caches = try (0..<2).map { _ in try DiskCache(directory: folder.cacheURL, configuration: configuration) }
        let failures = Lock<[String]>([])
        let finished = DispatchGroup()
        for thread in 0..<6 {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                for index in 0..<150 {
                    do {
                        try caches[thread % 2].store(
                            Data(repeating: UInt8(index % 256), count: .random(in: 0...2000)),
                            forKey: "\(Int.random(in: 0..<64))")
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        finished.wait()
        for cache in caches { cache.waitForScheduledTrims() }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try caches[0].totalSize <= configuration.sizeLimit)
    }
    @Test("trim() under the limit removes no entry")
    func trimUnderLimit() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        for index in 0..<20 { try fixture.cache.store(Data([UInt8(index)]), forKey: "\(index)") }
        try fixture.cache.trim()
        #expect(try fixture.cache.keys().count == 20)
    }

    @Test("Temporary files: abandoned ones are removed by trim, ones a live writer holds are kept")
    func temporaryFiles() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data([1]), forKey: "k")  // creates tmp/
        let tmp = fixture.cache.temporaryDirectoryPath
        for index in 0..<5 { try Data(repeating: 9, count: 100).write(to: URL(filePath: "\(tmp)/99999-\(index).tmp")) }
        // Not the cache's: a link (even with a temporary file's name) and a file with another name.
        try FileManager.default.createSymbolicLink(
            atPath: "\(tmp)/99998-link.tmp", withDestinationPath: try fixture.entryPath("k"))
        try Data("notes".utf8).write(to: URL(filePath: "\(tmp)/notes.tmp"))
        // A writer in progress: the file is flock'ed through another open file description.
        let live = "\(tmp)/99997-live.tmp"
        let descriptor = open(live, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)  // no child of another test keeps its lock
        try #require(descriptor >= 0)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)

        try fixture.cache.trim()
        #expect(fixture.temporaryFiles.sorted() == ["99997-live.tmp", "99998-link.tmp", "notes.tmp"])
        #expect(try fixture.cache.data(forKey: "k") == Data([1]))  // the link's target is untouched
        #expect(fixture.log.lines(containing: "abandoned").first?.metadata["count"] == "5")

        close(descriptor)  // the writer dies: the kernel drops its lock
        try fixture.cache.trim()
        #expect(fixture.temporaryFiles.sorted() == ["99998-link.tmp", "notes.tmp"])
    }

    @Test("removeAll keeps a live writer's temporary file and the cache works afterwards")
    func removeAllWithLiveWriter() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        for index in 0..<10 { try fixture.cache.store(Data([UInt8(index)]), forKey: "\(index)") }
        let live = "\(fixture.cache.temporaryDirectoryPath)/99997-live.tmp"
        let descriptor = open(live, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)  // no child of another test keeps its lock
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        try fixture.cache.removeAll()
        #expect(fixture.files == ["tmp/99997-live.tmp"])
        try fixture.cache.store(Data([42]), forKey: "again")
        #expect(try fixture.cache.data(forKey: "again") == Data([42]))
    }
}
