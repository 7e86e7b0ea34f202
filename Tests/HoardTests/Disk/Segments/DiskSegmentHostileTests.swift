import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// Segment files against what they must survive: extreme numbers in a damaged index, files with
/// another name or made by someone else where the cache appends, an index made anew beside old
/// segments, and a kept handle on a file since replaced.
@Suite("DiskCache segment files against hostile states")
struct DiskSegmentHostileTests {
    private func makeFixture(function: String = #function) throws -> DiskCacheFixture {
        try DiskCacheFixture(
            sizeLimit: 4 << 20, inlineEntryLimit: DiskCache.Configuration.defaultInlineEntryLimit, function: function)
    }

    private func value(_ key: String, version: UInt64 = 1, byteCount: Int = 5000) -> Data {
        StressValue.make(key: key, version: version, byteCount: byteCount)
    }

    private func segmentID(of key: String, in cache: DiskCache) throws -> Int? {
        try IndexSurgery.segmentLocation(in: cache, key: key).flatMap {
            SegmentFiles.id(inFileName: URL(filePath: $0.path).lastPathComponent)
        }
    }

    @Test("Sizes, lengths and offsets at the ends of Int64 in the index: misses, and stores, trims and listings go on")
    func extremeNumbers() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        for key in ["a", "b", "c", "f"] { try cache.store(value(key), forKey: key) }
        try cache.store(value("small", byteCount: 500), forKey: "small")
        let first = try #require(try segmentID(of: "a", in: cache))
        try cache.index.withConnection(writing: true) { connection in
            // Two sizes whose sum overflows (SQLite's sum() fails on it), an offset where a read
            // would overflow off_t, a size below zero, and the newest segment's length at the top.
            try connection.execute("UPDATE entries SET size = 4611686018427387904 WHERE key IN ('a', 'b')")
            try connection.execute("UPDATE entries SET offset = 9223372036854775000 WHERE key = 'c'")
            try connection.execute("UPDATE entries SET size = -9223372036854775808 WHERE key = 'f'")
            try connection.execute("UPDATE segments SET length = 9223372036854775807")
        }
        try cache.store(value("d"), forKey: "d")
        #expect(try cache.data(forKey: "d") == value("d"))
        #expect(try segmentID(of: "d", in: cache).map { $0 > first } == true, "a new segment, not an append at the top")
        try cache.trim()
        _ = try cache.entryInfos()
        #expect(try cache.keys().contains("small"))
        #expect(cache.estimatedByteCount() >= 0)
        for key in ["a", "b", "c", "f"] { #expect(try cache.data(forKey: key) == nil, "\(key) is a miss") }
        #expect(fixture.log.lines(containing: "Removed damaged disk cache entry").count == 4)
        // Stored again over the damaged rows, and a newest segment whose length is below zero.
        for key in ["a", "f"] { try cache.store(value(key, version: 2), forKey: key) }
        try cache.index.withConnection(writing: true) {
            try $0.execute("UPDATE segments SET length = -5 WHERE id = (SELECT max(id) FROM segments)")
        }
        try cache.store(value("g"), forKey: "g")
        try cache.trim()
        for key in ["a", "f"] { #expect(try cache.data(forKey: key) == value(key, version: 2)) }
        #expect(try cache.data(forKey: "g") == value("g"))
        #expect(try cache.data(forKey: "d") == value("d"))
        #expect(try cache.data(forKey: "small") == value("small", byteCount: 500))
        // A row naming a segment that is not there is passed over by a removal that reads prefixes.
        try cache.store(value("gone"), forKey: "gone")
        try cache.index.withConnection(writing: true) { try $0.execute("UPDATE entries SET segment = 999 WHERE key = 'gone'") }
        #expect(try cache.removeEntries(picking: { key, _ in key == "g" }) == ["g"])
        #expect(try cache.data(forKey: "gone") == nil)
    }

    @Test("A segment with another name (a hard link) is never appended to; where a new one goes, only a stray file is replaced")
    func otherNames() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        try fixture.cache.store(value("a"), forKey: "a")
        let location = try #require(try IndexSurgery.segmentLocation(in: fixture.cache, key: "a"))
        let outside = fixture.folder.url.appending(path: "outside").path(percentEncoded: false)
        // The newest segment's name made a second name of a file outside the cache.
        try FileManager.default.moveItem(atPath: location.path, toPath: outside)
        try FileManager.default.linkItem(atPath: outside, toPath: location.path)
        let before = try Data(contentsOf: URL(filePath: outside))
        let fresh = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        // The store goes to a new segment: the hard-linked one is never appended to.
        try fresh.store(value("b"), forKey: "b")
        #expect(try fresh.data(forKey: "b") == value("b"))
        let bSegment = try #require(try segmentID(of: "b", in: fresh))
        #expect(try segmentID(of: "a", in: fresh) != bSegment)
        #expect(try Data(contentsOf: URL(filePath: outside)) == before)
        #expect(try fresh.data(forKey: "a") == value("a"), "reading it is still fine")
        // Where the next segment goes: a name taken by a hard link is passed over for the next,
        // where a stray regular file (a store killed before its commit) is replaced.
        try fresh.index.withConnection(writing: true) { try $0.execute("UPDATE segments SET length = 9223372036854775807") }
        let linked = fresh.segments.path(of: bSegment + 1)
        try FileManager.default.linkItem(atPath: outside, toPath: linked)
        let stray = fresh.segments.path(of: bSegment + 2)
        try Data(repeating: 0xEE, count: 9000).write(to: URL(filePath: stray))
        try fresh.store(value("c"), forKey: "c")
        #expect(try fresh.data(forKey: "c") == value("c"))
        let placed = try IndexSurgery.segmentLocation(in: fresh, key: "c")?.path
        #expect(placed == stray, "\(placed ?? "-") against \(stray)")
        #expect(try Data(contentsOf: URL(filePath: outside)) == before)
        try fresh.trim()
        #expect(try Data(contentsOf: URL(filePath: outside)) == before)
        #expect(FileManager.default.fileExists(atPath: linked), "a file with another name is left alone")
    }

    @Test("An index made anew beside old segment files numbers its segments past them")
    func indexMadeAnew() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        try fixture.cache.store(value("a"), forKey: "a")
        let root = fixture.folder.cacheURL.path(percentEncoded: false)
        try Data(repeating: 1, count: 100).write(to: URL(filePath: root + "/segment-5"))
        for suffix in [""] + DiskIndex.companionSuffixes {
            try? FileManager.default.removeItem(atPath: root + "/" + DiskIndex.fileName + suffix)
        }
        let fresh = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        try fresh.store(value("b"), forKey: "b")
        #expect(try segmentID(of: "b", in: fresh).map { $0 > 5 } == true)
        #expect(try fresh.data(forKey: "b") == value("b"))
        #expect(try fresh.data(forKey: "a") == nil, "its record went with the index that named it")
    }

    @Test("A kept handle on a segment since replaced: the read is made again through the file now there, and the entry kept")
    func replacedUnderKeptHandle() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        try fixture.cache.store(value("a"), forKey: "a")
        #expect(try fixture.cache.data(forKey: "a") == value("a"))  // keeps a read handle
        let location = try #require(try IndexSurgery.segmentLocation(in: fixture.cache, key: "a"))
        let copy = location.path + ".copy"
        try FileManager.default.copyItem(atPath: location.path, toPath: copy)
        // The file the handle is on gets other bytes; the name gets the intact copy.
        let handle = try #require(FileHandle(forUpdatingAtPath: location.path))
        try handle.seek(toOffset: UInt64(location.offset + location.count - 10))
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 10))
        try handle.close()
        #expect(rename(copy, location.path) == 0)
        #expect(try fixture.cache.data(forKey: "a") == value("a"))
        #expect(fixture.log.lines(containing: "Removed damaged disk cache entry").isEmpty)
    }
}
