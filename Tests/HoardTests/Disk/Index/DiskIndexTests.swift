import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index and the records kept inside it: placement by size, damage to a record or to the whole
/// database, an index out of step with the files, caches of the earlier format, compaction.
@Suite("DiskCache index")
struct DiskIndexTests {
    static let limit = DiskCache.Configuration.defaultInlineEntryLimit

    private func makeFixture(function: String = #function) throws -> DiskCacheFixture {
        try DiskCacheFixture(inlineEntryLimit: Self.limit, function: function)
    }

    @Test("Records under 2 KiB live inside the index, up to the limit in a segment file, larger ones in a file; all read back exactly")
    func placementBySize() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        // Header 48 bytes plus the key "v": the largest value kept inline is limit - 49 bytes.
        let sizes = [0, 1, 1024, 16 * 1024, Self.limit - 49, Self.limit - 48, 200_000]
        var values: [String: Data] = [:]
        for size in sizes {
            let key = size == Self.limit - 49 || size == Self.limit - 48 ? (size == Self.limit - 49 ? "v" : "w") : "size \(size)"
            values[key] = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
            try fixture.cache.store(try #require(values[key]), forKey: key)
        }
        for (key, value) in values {
            #expect(try fixture.cache.data(forKey: key) == value, "\(key)")
            let record = try IndexSurgery.record(in: fixture.cache, key: key)
            let header = 48 + key.utf8.count
            let placement = try IndexSurgery.placement(in: fixture.cache, key: key)
            if header + value.count < SegmentStore.recordThreshold {
                #expect(placement == .inline, "\(key)")
            } else if header + value.count <= Self.limit {
                #expect(placement == .segment, "\(key)")
            } else {
                #expect(placement == .file, "\(key)")
            }
            if header + value.count <= Self.limit {
                #expect(record.map { Data($0.suffix(value.count)) } == value && record?.count == header + value.count)
            } else {
                #expect(record == nil, "\(key) should have a file")
            }
        }
        // The two records from 2 KiB to the limit share one segment file.
        let expectedFiles = Set(try ["w", "size 200000"].map { key in
            let name = try DiskCache.fileName(forKey: key)
            return name.prefix(2) + "/" + name
        } + ["segment-1"])
        #expect(Set(fixture.files) == expectedFiles)
    }

    @Test("Replacing a value moves it between the index and a file, and leaves no stale copy")
    func replacementAcrossPlacements() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let small = StressValue.make(key: "k", version: 1, byteCount: 500)
        let large = StressValue.make(key: "k", version: 2, byteCount: 300_000)
        try fixture.cache.store(large, forKey: "k")
        #expect(try fixture.files.count == 1 && (IndexSurgery.record(in: fixture.cache, key: "k")) == nil)
        try fixture.cache.store(small, forKey: "k")
        #expect(try fixture.files.isEmpty && (IndexSurgery.record(in: fixture.cache, key: "k")) != nil)
        #expect(try fixture.cache.data(forKey: "k") == small)
        try fixture.cache.store(large, forKey: "k")
        #expect(try fixture.files.count == 1 && (IndexSurgery.record(in: fixture.cache, key: "k")) == nil)
        #expect(try fixture.cache.data(forKey: "k") == large)
        #expect(try fixture.cache.totalSize == 48 + 1 + large.count)
        try fixture.cache.remove(forKey: "k")
        #expect(try fixture.files.isEmpty && (fixture.cache.data(forKey: "k")) == nil && (fixture.cache.totalSize) == 0)
    }

    /// Ways a record inside the index can be damaged, each by what it does to the stored bytes.
    static let damages: [(String, @Sendable ([UInt8]) -> [UInt8])] = [
        ("magic", { var b = $0; b[0] ^= 1; return b }),
        ("key length", { var b = $0; b[12] ^= 1; return b }),
        ("payload checksum", { var b = $0; b[40] ^= 1; return b }),
        ("header checksum", { var b = $0; b[44] ^= 1; return b }),
        ("key", { var b = $0; b[48] ^= 1; return b }),
        ("first payload byte", { var b = $0; b[54] ^= 1; return b }),
        ("last payload byte", { var b = $0; b[b.count - 1] ^= 1; return b }),
        ("cut short", { Array($0.dropLast(1)) }),
        ("one byte too many", { $0 + [0] }),
        ("empty", { _ in [] }),
        ("not a record", { _ in Array("not an entry".utf8) }),
    ]

    @Test(
        "A damaged record inside the index or a segment is a miss, removed and logged; the others are intact",
        arguments: 0..<11, [500, 4000])
    func damagedRecord(damage: Int, byteCount: Int) throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let (name, damaged) = Self.damages[damage]
        let value = StressValue.make(key: "victim", version: 1, byteCount: byteCount)
        try fixture.cache.store(value, forKey: "victim")
        try fixture.cache.store(Data("intact".utf8), forKey: "bystander")
        let record = try #require(try IndexSurgery.record(in: fixture.cache, key: "victim"))
        try IndexSurgery.setRecord(in: fixture.cache, key: "victim", to: damaged(record))
        #expect(try fixture.cache.data(forKey: "victim") == nil, "\(name)")
        let warnings = fixture.log.lines(containing: "Removed damaged disk cache entry")
        #expect(warnings.count == 1 && warnings.first?.level == .warning, "\(name)")
        #expect(warnings.first?.metadata["path"] == .string(fixture.cache.index.path))
        #expect(try fixture.cache.keys() == ["bystander"])
        #expect(try fixture.cache.data(forKey: "bystander") == Data("intact".utf8))
        try fixture.cache.store(value, forKey: "victim")
        #expect(try fixture.cache.data(forKey: "victim") == value)
    }

    @Test("A record of another key (a collision, or a misplaced row) is a miss")
    func recordOfAnotherKey() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data("mine".utf8), forKey: "mine")
        try fixture.cache.store(Data("theirs".utf8), forKey: "theirs")
        let theirs = try #require(try IndexSurgery.record(in: fixture.cache, key: "theirs"))
        try IndexSurgery.setRecord(in: fixture.cache, key: "mine", to: theirs)
        #expect(try fixture.cache.data(forKey: "mine") == nil)
        #expect(fixture.log.lines(containing: "Removed damaged").count == 1)
        #expect(try fixture.cache.data(forKey: "theirs") == Data("theirs".utf8))
    }

    /// What can be done to the database file while no cache has it open.
    static let indexDamages: [(String, @Sendable (String) throws -> Void)] = [
        ("garbage over the whole file", { path in
            try Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(filePath: path))
        }),
        ("header zeroed", { path in
            let handle = try FileHandle(forWritingTo: URL(filePath: path))
            try handle.write(contentsOf: Data(count: 100))
            try handle.close()
        }),
        ("pages after the first overwritten", { path in
            let handle = try FileHandle(forWritingTo: URL(filePath: path))
            try handle.seek(toOffset: 4096)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 3 * 4096))
            try handle.close()
        }),
        ("emptied", { path in try Data().write(to: URL(filePath: path)) }),
    ]

    @Test("A damaged index is rebuilt when opened: entry files are kept, records inside it are misses, all logged",
        arguments: 0..<4)
    func damagedIndexFile(damage: Int) throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let large = StressValue.make(key: "large", version: 1, byteCount: 150_000)
        try fixture.cache.store(large, forKey: "large")
        for index in 0..<200 { try fixture.cache.store(Data(repeating: UInt8(index), count: 2000), forKey: "small \(index)") }
        fixture.cache.index.closeIdleConnections()  // the last close checkpoints the WAL into the file
        let path = fixture.cache.index.path
        let (name, damageFile) = Self.indexDamages[damage]
        try damageFile(path)
        let reopened = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        var everyRead: [Data?] = []
        for index in 0..<200 { everyRead.append(try reopened.data(forKey: "small \(index)")) }
        // Never a wrong value: each small one is its value or a miss.
        for (index, read) in everyRead.enumerated() where read != nil {
            #expect(read == Data(repeating: UInt8(index), count: 2000), "\(name)")
        }
        // An emptied file is a new, empty database to SQLite: found missing rather than damaged.
        let rebuilt = fixture.log.lines(
            containing: damage == 3 ? "Disk cache index was missing" : "Disk cache index is damaged")
        if damage != 2 || everyRead.contains(nil) {
            #expect(rebuilt.count == 1 && rebuilt.first?.level == (damage == 3 ? .warning : .error), "\(name)")
        }
        if !rebuilt.isEmpty {
            // Rebuilt from the files: the large entry survives, the small ones are gone.
            #expect(everyRead.allSatisfy { $0 == nil }, "\(name)")
            #expect(try Set(reopened.keys()) == ["large"])
        }
        #expect(try reopened.data(forKey: "large") == large, "\(name)")
        try reopened.store(Data("after".utf8), forKey: "after")
        #expect(try reopened.data(forKey: "after") == Data("after".utf8))
    }

    @Test("An index out of step with the files: a row without its file, a file without a row, a stale copy")
    func indexOutOfStep() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let large = StressValue.make(key: "large", version: 1, byteCount: 150_000)
        // A row whose file is gone: a miss, and the row goes.
        try fixture.cache.store(large, forKey: "gone")
        try FileManager.default.removeItem(atPath: try fixture.entryPath("gone"))
        #expect(try fixture.cache.data(forKey: "gone") == nil)
        #expect(try !fixture.cache.keys().contains("gone"))
        // A valid file the index does not know (a crash between rename and row): indexed by trim().
        let other = try DiskCacheFixture(function: "outOfStepSource")
        defer { other.remove() }
        /// Stores `large` under `key` in `other` and copies its entry file into `fixture`'s folder.
        func plantFile(forKey key: String) throws -> String {
            try other.cache.store(large, forKey: key)
            let path = try fixture.entryPath(key)
            try FileManager.default.createDirectory(
                atPath: String(path.prefix(upTo: path.lastIndex(of: "/") ?? path.endIndex)),
                withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try other.entryPath(key), toPath: path)
            return path
        }
        _ = try plantFile(forKey: "orphan")
        #expect(try fixture.cache.data(forKey: "orphan") == nil)
        // A stale file beside a record kept inline (a crash between the commit and the unlink).
        try fixture.cache.store(Data("inline".utf8), forKey: "stale")
        let stalePath = try plantFile(forKey: "stale")
        #expect(try fixture.cache.data(forKey: "stale") == Data("inline".utf8))
        try fixture.cache.trim()
        #expect(try fixture.cache.data(forKey: "orphan") == large)
        #expect(try fixture.cache.data(forKey: "stale") == Data("inline".utf8))
        #expect(!FileManager.default.fileExists(atPath: stalePath))
        #expect(try Set(fixture.cache.keys()) == ["orphan", "stale"])
        #expect(try fixture.cache.totalSize == 48 + 6 + large.count + 48 + 5 + 6)
    }

    @Test("A cache of the earlier format (a file per entry, no index) is indexed when opened")
    func earlierFormat() throws {
        let fixture = try DiskCacheFixture()  // a file per entry, as format 1 wrote them
        defer { fixture.remove() }
        var values: [String: Data] = [:]
        for index in 0..<30 {
            let key = "old \(index)"
            values[key] = StressValue.make(key: key, version: 1, byteCount: 100 * index)
            try fixture.cache.store(try #require(values[key]), forKey: key)
        }
        try fixture.cache.store(Data("soon gone".utf8), forKey: "expiring", expiry: .seconds(10))
        try fixture.cache.store(Data("to be damaged".utf8), forKey: "damaged")
        var damaged = try Data(contentsOf: URL(filePath: try fixture.entryPath("damaged")))
        damaged[damaged.count - 1] ^= 1
        try damaged.write(to: URL(filePath: try fixture.entryPath("damaged")))
        // Now make it look like format 1: no index, the old marker.
        fixture.cache.index.closeIdleConnections()
        let root = fixture.folder.cacheURL
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) where name.hasPrefix(DiskIndex.fileName) {
            try FileManager.default.removeItem(at: root.appending(path: name))
        }
        try Data("Hoard cache\nformat 1\n".utf8).write(to: root.appending(path: DiskCache.markerFileName))
        fixture.clock.advance(by: 20)
        let reopened = try DiskCache(
            directory: root, configuration: fixture.configuration(inlineEntryLimit: Self.limit))
        let marker = try String(contentsOf: root.appending(path: DiskCache.markerFileName), encoding: .utf8)
        #expect(marker == "Hoard cache\nformat 2\n")
        for (key, value) in values { #expect(try reopened.data(forKey: key) == value, "\(key)") }
        #expect(try reopened.data(forKey: "damaged") == nil && (reopened.data(forKey: "expiring")) == nil)
        #expect(try Set(reopened.keys()) == Set(values.keys))
        #expect(fixture.log.lines(containing: "Removed damaged disk cache entry").count == 1)
        let indexed = fixture.log.lines(containing: "Indexed the entry files of a disk cache made by an earlier Hoard")
        // Indexing reads headers only: the damaged payload is caught by the first read, above.
        #expect(indexed.count == 1 && indexed.first?.metadata["entries"] == "31")
        // Opened again: already the current format, nothing to index.
        _ = try DiskCache(directory: root, configuration: fixture.configuration(inlineEntryLimit: Self.limit))
        #expect(fixture.log.lines(containing: "Indexed the entry files").count == 1)
    }

    @Test(
        "An index (or its -wal or -shm) that is a symbolic link or a folder is refused, and what it points to is untouched",
        arguments: ["", "-wal", "-shm"])
    func foreignIndex(suffix: String) throws {
        for kind in ["link", "folder"] {
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            _ = try DiskCache(directory: folder.cacheURL)
            let path = folder.cacheURL.appending(path: DiskIndex.fileName + suffix).path(percentEncoded: false)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.cacheURL.path)
            where name.hasPrefix(DiskIndex.fileName) {
                try FileManager.default.removeItem(at: folder.cacheURL.appending(path: name))
            }
            let target = folder.url.appending(path: "precious").path(percentEncoded: false)
            try Data("precious".utf8).write(to: URL(filePath: target))
            if kind == "link" {
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            } else {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
            #expect(throws: DiskCacheError.foreignItem(path: path, reason: "not a regular file (\(kind == "link" ? "symbolicLink" : "directory"))")) {
                _ = try DiskCache(directory: folder.cacheURL)
            }
            #expect(try Data(contentsOf: URL(filePath: target)) == Data("precious".utf8))
        }
    }

    @Test("inlineEntryLimit outside 0...4 MiB is refused", arguments: [-1, Int.min, 4 * 1024 * 1024 + 1, Int.max])
    func invalidInlineLimit(limit: Int) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        #expect(throws: DiskCacheError.self) {
            _ = try DiskCache(directory: folder.cacheURL, configuration: .init(inlineEntryLimit: limit))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.cacheURL.appending(path: DiskIndex.fileName).path))
    }

    @Test("Removing entries gives their pages back to the file system")
    func compaction() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let pageBytes = {
            try fixture.cache.index.withConnection(writing: true) { connection -> Int in
                let count = try connection.uncachedStatement("PRAGMA page_count")
                defer { count.reset() }
                return try count.step() ? count.int(0) * 4096 : 0
            }
        }
        // Records of 1.5 KiB: inside the index.
        for index in 0..<4000 {
            try fixture.cache.store(Data(repeating: UInt8(truncatingIfNeeded: index), count: 1500), forKey: "k\(index)", expiry: index < 3000 ? .seconds(10) : .never)
        }
        let before = try pageBytes()
        #expect(before > 6_000_000)
        fixture.clock.advance(by: 11)
        #expect(try fixture.cache.removeExpired() == 3000)
        let after = try pageBytes()
        #expect(after < before / 3, "\(before) -> \(after) bytes")
        for index in 3000..<4000 {
            #expect(try fixture.cache.data(forKey: "k\(index)") == Data(repeating: UInt8(index % 256), count: 1500))
        }
        try fixture.cache.removeAll()
        #expect(try pageBytes() < 64 * 1024)
    }
}
