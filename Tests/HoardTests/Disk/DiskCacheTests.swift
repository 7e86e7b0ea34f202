import Foundation
import Testing

@testable import HoardCore
import HoardTestSupport

@Suite("DiskCache basics")
struct DiskCacheTests {
    @Test("Stores, reads back, replaces and removes")
    func storeReadReplaceRemove() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        #expect(try cache.data(forKey: "a") == nil)
        try cache.store(Data("first".utf8), forKey: "a")
        #expect(try cache.data(forKey: "a") == Data("first".utf8))
        try cache.store(Data("second, longer".utf8), forKey: "a")
        #expect(try cache.data(forKey: "a") == Data("second, longer".utf8))
        try cache.store(Data(), forKey: "empty")
        #expect(try cache.data(forKey: "empty") == Data())
        try cache.remove(forKey: "a")
        try cache.remove(forKey: "a")  // a missing entry is fine
        #expect(try cache.data(forKey: "a") == nil)
        #expect(try cache.data(forKey: "empty") == Data())
    }

    @Test("Large values round-trip", arguments: [4095, 16 * 1024 - 40, 16 * 1024, 1 << 20, 3 << 20])
    func largeValues(byteCount: Int) throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let value = StressValue.make(key: "big", version: UInt64(byteCount), byteCount: byteCount)
        try fixture.cache.store(value, forKey: "big")
        #expect(try fixture.cache.data(forKey: "big") == value)
    }

    @Test("The entry carries creation and expiration dates from the injected clock")
    func entryMetadata() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let stored = fixture.clock.now
        try fixture.cache.store(Data([1, 2, 3]), forKey: "k", expiry: .seconds(90))
        try fixture.cache.store(Data([4]), forKey: "forever")
        fixture.clock.advance(by: 10)
        let entry = try #require(try fixture.cache.entry(forKey: "k"))
        #expect(
            entry
                == DiskCache.Entry(
                    key: "k", data: Data([1, 2, 3]), creationDate: stored, expirationDate: stored.addingTimeInterval(90)
                ))
        #expect(try fixture.cache.entry(forKey: "forever")?.expirationDate == nil)
    }

    @Test("Entries are files named by the SHA-256 of the key, in two-digit shard folders")
    func layout() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data("x".utf8), forKey: "abc")
        // SHA-256("abc") = ba7816bf...
        let expected = "ba/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(fixture.files == [expected])
        let bytes = try [UInt8](Data(contentsOf: fixture.folder.cacheURL.appending(path: expected)))
        #expect(Array(bytes.prefix(8)) == CacheRecord.Header.magic)
        #expect(bytes.count == 48 + 3 + 1)
    }

    @Test("Hostile keys never become paths and each reads back its own value")
    func hostileKeys() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let keys = [
            "../../etc/passwd", "/", "", ".", "..", "a/b/c", "/tmp/x", "nul\u{0}byte", "\u{0}",
            String(repeating: "k", count: 64 * 1024), "🗝️🧪🐚", "e\u{301}", "\u{e9}", "tmp", "ba", "C:\\Windows",
            "~/.ssh/id_rsa", "%2e%2e%2f", "line\nbreak",
        ]
        for (index, key) in keys.enumerated() {
            try fixture.cache.store(Data("value \(index)".utf8), forKey: key)
        }
        for (index, key) in keys.enumerated() {
            #expect(try fixture.cache.data(forKey: key) == Data("value \(index)".utf8), "key #\(index)")
        }
        // Everything is inside the cache folder, and every file is a hashed name in a shard.
        let files = fixture.files
        #expect(files.count == keys.count)
        for file in files {
            let parts = file.split(separator: "/").map(String.init)
            #expect(
                parts.count == 2 && EntryFiles.isShardName(parts[0]) && EntryFiles.isEntryFileName(parts[1]), "\(file)")
        }
        #expect(Set(try fixture.cache.keys()) == Set(keys))
        // Nothing escaped next to the cache folder.
        let outside = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path)
        #expect(outside == ["cache"])
    }

    @Test("A key longer than the maximum is refused on store and a miss on read")
    func keyTooLong() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let key = String(repeating: "x", count: DiskCache.maximumKeyByteCount + 1)
        #expect(throws: DiskCacheError.keyTooLong(byteCount: key.utf8.count, maximum: DiskCache.maximumKeyByteCount)) {
            try fixture.cache.store(Data(), forKey: key)
        }
        #expect(try fixture.cache.data(forKey: key) == nil)
    }

    @Test("Expired entries are never returned, and are removed when seen")
    func expiry() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        try cache.store(Data("s".utf8), forKey: "seconds", expiry: .seconds(60))
        try cache.store(Data("d".utf8), forKey: "date", expiry: .date(fixture.clock.now.addingTimeInterval(120)))
        try cache.store(Data("n".utf8), forKey: "never", expiry: .never)
        // An expiry that is not finite is refused: nothing is stored.
        #expect(throws: DiskCacheError.self) { try cache.store(Data("i".utf8), forKey: "infinite", expiry: .seconds(.infinity)) }
        fixture.clock.advance(by: 59)
        #expect(try cache.data(forKey: "seconds") == Data("s".utf8))
        fixture.clock.advance(by: 1)  // exactly at the expiration date: expired
        #expect(try cache.data(forKey: "seconds") == nil)
        #expect(!FileManager.default.fileExists(atPath: try fixture.entryPath("seconds")))
        #expect(try cache.data(forKey: "date") == Data("d".utf8))
        fixture.clock.advance(by: 61)
        #expect(try cache.data(forKey: "date") == nil)
        fixture.clock.advance(by: 1e9)
        #expect(try cache.data(forKey: "never") == Data("n".utf8))
        #expect(try cache.data(forKey: "infinite") == nil)
    }

    @Test("Storing with an expiry already past stores nothing and drops the old value")
    func alreadyExpired() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data("old".utf8), forKey: "k")
        try fixture.cache.store(Data("new".utf8), forKey: "k", expiry: .seconds(0))
        #expect(try fixture.cache.data(forKey: "k") == nil)
        try fixture.cache.store(Data("new".utf8), forKey: "k", expiry: .date(.distantPast))
        #expect(fixture.files.isEmpty)
        // A NaN expiry is refused with the field and the value, and keeps what was there.
        try fixture.cache.store(Data("kept".utf8), forKey: "k")
        #expect(
            throws: DiskCacheError.invalidValue(
                InvalidValueError(
                    field: "DiskCache.store(_:forKey:expiry:) expiry", value: ".seconds(nan)",
                    requirement: "a finite number of seconds"))
        ) { try fixture.cache.store(Data("new".utf8), forKey: "k", expiry: .seconds(.nan)) }
        #expect(try fixture.cache.data(forKey: "k") == Data("kept".utf8))
    }

    @Test("removeExpired removes exactly the expired entries")
    func removeExpired() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        for index in 0..<10 {
            try fixture.cache.store(Data([UInt8(index)]), forKey: "k\(index)", expiry: .seconds(Double(index + 1) * 10))
        }
        fixture.clock.advance(by: 45)  // k0...k3 expired
        #expect(try fixture.cache.removeExpired() == 4)
        #expect(fixture.files.count == 6)
        #expect(Set(try fixture.cache.keys()) == Set((4..<10).map { "k\($0)" }))
        #expect(try fixture.cache.removeExpired() == 0)
    }

    @Test("removeOlderThan removes by creation date")
    func removeOlderThan() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data([0]), forKey: "old")
        fixture.clock.advance(by: 100)
        let cutoff = fixture.clock.now
        try fixture.cache.store(Data([1]), forKey: "new")
        fixture.clock.advance(by: 100)
        _ = try fixture.cache.data(forKey: "old")  // use does not make it younger
        #expect(try fixture.cache.removeOlderThan(cutoff) == 1)
        #expect(try fixture.cache.data(forKey: "old") == nil)
        #expect(try fixture.cache.data(forKey: "new") == Data([1]))
    }

    @Test("keys lists every live key once, removeAll empties the cache, entryCount and totalSize count records")
    func keysRemoveAllTotalSize() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let keys = (0..<50).map { "key \($0)" }
        for key in keys { try fixture.cache.store(Data(repeating: 7, count: 100), forKey: key) }
        try fixture.cache.store(Data(), forKey: "short-lived", expiry: .seconds(5))
        fixture.clock.advance(by: 5)
        #expect(Set(try fixture.cache.keys()) == Set(keys))
        #expect(try fixture.cache.keys().count == keys.count)
        // Listing writes nothing: the expired entry counts until it is removed.
        let expectedSize = keys.reduce(0) { $0 + 48 + $1.utf8.count + 100 }
        #expect(try fixture.cache.entryCount == keys.count + 1)
        #expect(try fixture.cache.totalSize == expectedSize + 48 + "short-lived".utf8.count)
        #expect(try fixture.cache.removeExpired() == 1)
        #expect(try fixture.cache.entryCount == keys.count)
        #expect(try fixture.cache.totalSize == expectedSize)
        try fixture.cache.removeAll()
        #expect(try fixture.cache.keys().isEmpty)
        #expect(try fixture.cache.totalSize == 0)
        #expect(fixture.files.isEmpty)
        try fixture.cache.store(Data([1]), forKey: "after")  // still usable
        #expect(try fixture.cache.data(forKey: "after") == Data([1]))
    }

    @Test("Two instances on one folder see each other's entries")
    func sharedFolder() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let other = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        try fixture.cache.store(Data("from one".utf8), forKey: "k")
        #expect(try other.data(forKey: "k") == Data("from one".utf8))
        try other.store(Data("from two".utf8), forKey: "k")
        #expect(try fixture.cache.data(forKey: "k") == Data("from two".utf8))
    }

    @Test("The folder is created with its parents; an impossible folder throws a typed error")
    func directoryCreation() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let nested = folder.url.appending(path: "a/b/c")
        _ = try DiskCache(directory: nested)
        #expect(FileManager.default.fileExists(atPath: nested.path(percentEncoded: false)))
        let blocker = folder.url.appending(path: "file")
        try Data().write(to: blocker)
        let error = try #require(throws: DiskCacheError.self) {
            try DiskCache(directory: blocker.appending(path: "cache"))
        }
        guard case .directoryUnavailable(let path, let call, let code) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == blocker.path(percentEncoded: false) && call == "mkdir" && code == ENOTDIR, "\(error)")
        #expect(error.description.contains(blocker.path(percentEncoded: false)))
    }
}
