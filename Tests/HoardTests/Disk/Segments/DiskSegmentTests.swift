import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records from 2 KiB to the inline limit, kept in shared segment files: placement, compaction,
/// damage, strays, links, a full disk, and indexes of the schema before segments.
@Suite("DiskCache segment files")
struct DiskSegmentTests {
    /// A 4 MiB limit: segments of 1 MiB, so that a few hundred records fill several.
    private func makeFixture(function: String = #function) throws -> DiskCacheFixture {
        try DiskCacheFixture(
            sizeLimit: 4 << 20, inlineEntryLimit: DiskCache.Configuration.defaultInlineEntryLimit, function: function)
    }

    private func segmentFiles(_ fixture: DiskCacheFixture) -> [String: Int] {
        var sizes: [String: Int] = [:]
        for name in fixture.files where name.hasPrefix("segment-") {
            let path = fixture.folder.cacheURL.appending(path: name).path(percentEncoded: false)
            sizes[name] = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        }
        return sizes
    }

    @Test("Records from 2 KiB to the limit share segment files: no file per entry, each read back exactly")
    func sharedFiles() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        var values: [String: Data] = [:]
        for index in 0..<200 {
            let key = "value \(index)"
            values[key] = StressValue.make(key: key, version: 1, byteCount: 2000 + index * 100)
            try fixture.cache.store(try #require(values[key]), forKey: key)
        }
        #expect(fixture.files.allSatisfy { $0.hasPrefix("segment-") }, "\(fixture.files)")
        #expect((2...20).contains(segmentFiles(fixture).count), "\(segmentFiles(fixture))")
        let other = try DiskCache(directory: fixture.folder.cacheURL)  // as another process sees them
        for (key, value) in values {
            #expect(try fixture.cache.data(forKey: key) == value, "\(key)")
            #expect(try other.data(forKey: key) == value, "\(key)")
            #expect(try IndexSurgery.placement(in: fixture.cache, key: key) == .segment)
        }
    }

    @Test("Compaction gives back the space of replaced and removed records; readers keep reading right")
    func compaction() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let keys = (0..<240).map { "k\($0)" }
        for key in keys { try fixture.cache.store(StressValue.make(key: key, version: 1, byteCount: 16_000), forKey: key) }
        fixture.cache.waitForScheduledTrims()
        let initial = segmentFiles(fixture)
        // Another instance reads everything first, so it holds the old segments open.
        let other = try DiskCache(directory: fixture.folder.cacheURL)
        for key in keys { #expect(try other.data(forKey: key) == StressValue.make(key: key, version: 1, byteCount: 16_000)) }
        var expected: [String: Data] = [:]
        for (index, key) in keys.enumerated() {
            switch index % 3 {
            case 0: expected[key] = StressValue.make(key: key, version: 1, byteCount: 16_000)
            case 1: try fixture.cache.remove(forKey: key)
            default:
                expected[key] = StressValue.make(key: key, version: 2, byteCount: 9_000)
                try fixture.cache.store(try #require(expected[key]), forKey: key)
            }
        }
        try fixture.cache.trim()
        fixture.cache.waitForScheduledTrims()
        let after = segmentFiles(fixture)
        let live: Int = expected.values.reduce(0) { $0 + $1.count + 48 + 4 }
        let written: Int = initial.values.reduce(0, +) + (keys.count / 3) * (9_000 + 48 + 4)
        let bytesAfter: Int = after.values.reduce(0, +)
        let bound: Int = 2 * live + fixture.cache.segments.byteLimit
        // How much the explicit trim finds depends on what the trims the stores caused (over the
        // 4 MiB limit, on the cache's queue) compacted already; what holds after any compaction
        // is the bound below.
        #expect(bytesAfter < written, "\(initial) -> \(after)")
        #expect(bytesAfter <= bound, "\(after), live \(live)")
        #expect(Set(after.keys) != Set(initial.keys), "no segment was compacted away: \(initial) -> \(after)")
        for key in keys {
            #expect(try fixture.cache.data(forKey: key) == expected[key], "\(key)")
            #expect(try other.data(forKey: key) == expected[key], "\(key), read by the other instance")
        }
        #expect(fixture.log.lines(containing: "damaged").isEmpty)
        try fixture.cache.removeAll()
        #expect(segmentFiles(fixture).isEmpty)
        #expect(try fixture.cache.keys().isEmpty)
    }

    @Test("A row out of step with its segment (past its end, segment gone) is a miss, removed and logged")
    func rowOutOfStep() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        for key in ["a", "b", "c"] {
            try fixture.cache.store(StressValue.make(key: key, version: 1, byteCount: 5000), forKey: key)
        }
        let location = try #require(try IndexSurgery.segmentLocation(in: fixture.cache, key: "a"))
        try fixture.cache.index.withConnection(writing: true) { connection in
            try connection.execute("UPDATE entries SET offset = 1000000 WHERE key = 'a'")
            try connection.execute("UPDATE entries SET segment = 999 WHERE key = 'b'")
        }
        #expect(try fixture.cache.data(forKey: "a") == nil)
        #expect(try fixture.cache.data(forKey: "b") == nil)
        #expect(try fixture.cache.data(forKey: "c") == StressValue.make(key: "c", version: 1, byteCount: 5000))
        #expect(fixture.log.lines(containing: "Removed damaged disk cache entry").count == 2)
        #expect(try fixture.cache.keys() == ["c"])
        // The segment file itself is untouched by the misses.
        #expect(FileManager.default.fileExists(atPath: location.path))
    }

    @Test("What a killed store or compaction leaves (bytes past the end, a stray segment) is written over or removed; a link is left alone")
    func leftovers() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let root = fixture.folder.cacheURL.path(percentEncoded: false)
        try fixture.cache.store(StressValue.make(key: "a", version: 1, byteCount: 5000), forKey: "a")
        // Bytes past the committed end, as a killed append leaves them.
        let location = try #require(try IndexSurgery.segmentLocation(in: fixture.cache, key: "a"))
        let handle = try #require(FileHandle(forUpdatingAtPath: location.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 7000))
        try handle.close()
        try fixture.cache.store(StressValue.make(key: "b", version: 1, byteCount: 5000), forKey: "b")
        #expect(try IndexSurgery.segmentLocation(in: fixture.cache, key: "b")?.offset == location.offset + location.count)
        // A segment no row names, as a compaction killed after its commit leaves it; and a link.
        let outside = fixture.folder.url.appending(path: "outside").path(percentEncoded: false)
        try Data("not the cache's".utf8).write(to: URL(filePath: outside))
        try Data(repeating: 1, count: 100).write(to: URL(filePath: root + "/segment-77"))
        try FileManager.default.createSymbolicLink(atPath: root + "/segment-78", withDestinationPath: outside)
        try fixture.cache.trim()
        #expect(!FileManager.default.fileExists(atPath: root + "/segment-77"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/segment-78")) == outside)
        #expect(try Data(contentsOf: URL(filePath: outside)) == Data("not the cache's".utf8))
        for key in ["a", "b"] {
            #expect(try fixture.cache.data(forKey: key) == StressValue.make(key: key, version: 1, byteCount: 5000))
        }
    }

    @Test("A segment file that is a symbolic link is never followed: its records are misses, stores go to a new segment, what it points to is untouched")
    func linkedSegment() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        try fixture.cache.store(StressValue.make(key: "a", version: 1, byteCount: 5000), forKey: "a")
        let location = try #require(try IndexSurgery.segmentLocation(in: fixture.cache, key: "a"))
        let outside = fixture.folder.url.appending(path: "outside").path(percentEncoded: false)
        try FileManager.default.moveItem(atPath: location.path, toPath: outside)
        let original = try Data(contentsOf: URL(filePath: outside))
        try FileManager.default.createSymbolicLink(atPath: location.path, withDestinationPath: outside)
        let fresh = try DiskCache(directory: fixture.folder.cacheURL)  // no handle open from before
        #expect(try fresh.data(forKey: "a") == nil)
        try fresh.store(StressValue.make(key: "b", version: 1, byteCount: 5000), forKey: "b")
        #expect(try fresh.data(forKey: "b") == StressValue.make(key: "b", version: 1, byteCount: 5000))
        #expect(try IndexSurgery.segmentLocation(in: fresh, key: "b")?.path != location.path)
        try fresh.removeAll()
        #expect(try Data(contentsOf: URL(filePath: outside)) == original)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: location.path)) == outside)
    }

    @Test(
        "A full disk while appending to a segment throws ENOSPC; stored entries stay readable, and space comes back",
        .enabled(if: Tmpfs.canMount, "needs root with mount(2) for a tmpfs; mounting failed here"))
    func fullDisk() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let mountPoint = folder.url.appending(path: "mnt").path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try Tmpfs.mount(at: mountPoint, byteCount: 1 << 20)
        defer { Tmpfs.unmount(mountPoint) }
        let cache = try DiskCache(directory: URL(filePath: mountPoint + "/cache"))
        var stored: [String: Data] = [:]
        var failure: DiskCacheError?
        for index in 0..<100 {
            let key = "k\(index)"
            let value = StressValue.make(key: key, version: 1, byteCount: 16_000)
            do {
                try cache.store(value, forKey: key)
                stored[key] = value
            } catch let error as DiskCacheError {
                failure = error
                break
            }
        }
        let error = try #require(failure, "a 1 MiB tmpfs never filled up")
        #expect(error.errno == ENOSPC && error.path?.hasPrefix(mountPoint + "/cache/") == true, "\(error)")
        #expect(!stored.isEmpty)
        for (key, value) in stored { #expect(try cache.data(forKey: key) == value, "\(key)") }
        // Space comes back (the file system grows: the index needs room for its log even to remove).
        #if os(Linux)
            #expect(Glibc.mount("tmpfs", mountPoint, "tmpfs", UInt(MS_REMOUNT), "size=\(2 << 20)") == 0)
        #endif
        for key in stored.keys.sorted().dropFirst(4) { try cache.remove(forKey: key) }
        try cache.trim()
        let after = StressValue.make(key: "after", version: 1, byteCount: 16_000)
        try cache.store(after, forKey: "after")
        #expect(try cache.data(forKey: "after") == after)
        for key in stored.keys.sorted().prefix(4) { #expect(try cache.data(forKey: key) == stored[key]) }
        cache.segments.files.forgetAll()
        cache.index.closeIdleConnections()
    }

    @Test("An index of schema 1 (records only inside it) is brought up to date: its records read back, new ones go to segments")
    func schemaOneIndex() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let small = StressValue.make(key: "small", version: 1, byteCount: 1000)
        do {
            let cache = try DiskCache(directory: folder.cacheURL)
            try cache.store(small, forKey: "small")
            try cache.index.withConnection(writing: true) { connection in
                // What schema 1 was: no segment columns, no segments table.
                try connection.execute(
                    """
                    \(Self.schemaFour)
                    ALTER TABLE entries DROP COLUMN segment; ALTER TABLE entries DROP COLUMN offset;
                    DROP TABLE segments; PRAGMA user_version = 1;
                    """)
            }
            cache.index.closeIdleConnections()
        }
        let cache = try DiskCache(directory: folder.cacheURL)
        #expect(try cache.data(forKey: "small") == small)
        let large = StressValue.make(key: "large", version: 1, byteCount: 30_000)
        try cache.store(large, forKey: "large")
        #expect(try IndexSurgery.placement(in: cache, key: "large") == .segment)
        #expect(try cache.data(forKey: "large") == large)
        let schema = try Self.schema(of: cache)
        #expect(schema.version == DiskIndex.schemaVersion && schema.version == 5)
    }

    /// What takes an index of schema 5 back to schema 4: no running totals, no triggers.
    private static let schemaFour = """
        DROP TRIGGER entries_inserted; DROP TRIGGER entries_deleted; DROP TRIGGER entries_changed;
        DROP INDEX entries_by_segment; ALTER TABLE usage DROP COLUMN count; ALTER TABLE usage DROP COLUMN inline;
        ALTER TABLE segments DROP COLUMN live;
        """

    /// The index's schema version, and whether it still has schema 3's index on the last-use date.
    private static func schema(of cache: DiskCache) throws -> (version: Int, hasUseIndex: Bool) {
        try cache.index.withConnection(writing: true) { connection in
            let version = try connection.uncachedStatement("PRAGMA user_version")
            defer { version.reset() }
            let useIndex = try connection.uncachedStatement("SELECT count(*) FROM sqlite_schema WHERE name = 'entries_by_use'")
            defer { useIndex.reset() }
            return (try version.step() ? version.int(0) : -1, try useIndex.step() && useIndex.int(0) > 0)
        }
    }

    @Test("An index of schema 2 (the last released format: no usage count) opens with its entries and counts them")
    func schemaTwoIndex() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let values = [100, 10_000, 100_000].map { (key: "k\($0)", value: StressValue.make(key: "k\($0)", version: 1, byteCount: $0)) }
        let expected: Int
        do {
            let cache = try DiskCache(directory: folder.cacheURL)
            for (key, value) in values { try cache.store(value, forKey: key) }
            expected = try cache.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }.recordBytes
            try cache.index.withConnection(writing: true) { connection in
                try connection.execute(
                    "\(Self.schemaFour) DROP TABLE usage; CREATE INDEX entries_by_use ON entries (used, size); PRAGMA user_version = 2;")
            }
            cache.index.closeIdleConnections()
        }
        let log = LogRecorder()
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(logger: log.logger()))
        for (key, value) in values { #expect(try cache.data(forKey: key) == value) }
        let counted = try cache.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
        #expect(counted.recordBytes == expected, "the count made from the tables matches the one kept by the writes")
        #expect(counted.recordBytes > 100_000)
        #expect(counted.entryCount == 3)
        #expect(log.lines(containing: "damaged").isEmpty)
        #expect(try Self.schema(of: cache) == (version: 5, hasUseIndex: false))
    }

    @Test("An index of schema 3 (an index on the last-use date) opens with its entries, in the order they were stored")
    func schemaThreeIndex() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let values = [100, 10_000, 100_000, 200].map { (key: "k\($0)", value: StressValue.make(key: "k\($0)", version: 1, byteCount: $0)) }
        do {
            let cache = try DiskCache(directory: folder.cacheURL)
            for (key, value) in values { try cache.store(value, forKey: key) }
            try cache.index.withConnection(writing: true) { connection in
                try connection.execute("\(Self.schemaFour) CREATE INDEX entries_by_use ON entries (used, size); PRAGMA user_version = 3;")
            }
            cache.index.closeIdleConnections()
        }
        let log = LogRecorder()
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(logger: log.logger()))
        #expect(try Self.schema(of: cache) == (version: 5, hasUseIndex: false))
        for (key, value) in values { #expect(try cache.data(forKey: key) == value) }
        let order = try cache.index.withDatabase(writing: false) {
            try EntryTable(connection: $0).leastRecentlyUsed(atLeast: .max, rowOverhead: 0, limit: .max).map(\.hash)
        }
        #expect(order == (try values.map { try EntryFiles.keyHash($0.key) }))
        #expect(try cache.entryCount == values.count)
        #expect(try cache.totalSize == values.reduce(0) { $0 + 48 + $1.key.utf8.count + $1.value.count })
        try cache.store(Data("after".utf8), forKey: "after")
        #expect(try cache.data(forKey: "after") == Data("after".utf8))
        #expect(log.lines(containing: "damaged").isEmpty)
    }
}
