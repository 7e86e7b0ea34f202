import Foundation
import Testing

@testable import HoardCore

/// The entry table on its own: its rows stay in order of use, which is the order a trim takes
/// them in, and a damaged rowid that leaves no room for that order breaks no write and loses no row.
@Suite("EntryTable")
struct EntryTableTests {
    /// The keys of every row, least recently used first, as a trim reads them.
    private func keysInOrderOfUse(_ parts: DiskParts, among keys: [String]) throws -> [String] {
        let byHash = Dictionary(uniqueKeysWithValues: try keys.map { (try EntryFiles.keyHash($0), $0) })
        let rows = try parts.index.withDatabase(writing: false) {
            try EntryTable(connection: $0).leastRecentlyUsed(atLeast: .max, rowOverhead: 0, limit: .max)
        }
        return rows.compactMap { byHash[$0.hash] }
    }

    private func markUsed(_ parts: DiskParts, _ key: String) throws {
        let hash = try EntryFiles.keyHash(key)
        try parts.index.withDatabase(writing: true) { try EntryTable(connection: $0).markUsed(hash, at: parts.clock.now) }
    }

    @Test func aStoreOrAMarkedUseMakesARowTheMostRecentlyUsed() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        // Inside the index, in a segment, in a file of its own.
        let keys = ["inline", "segment", "file"]
        for (key, byteCount) in zip(keys, [100, 16_000, 100_000]) {
            try parts.store(key, DiskParts.payload(key, byteCount: byteCount))
        }
        #expect(try keysInOrderOfUse(parts, among: keys) == ["inline", "segment", "file"])
        try markUsed(parts, "inline")
        #expect(try keysInOrderOfUse(parts, among: keys) == ["segment", "file", "inline"])
        try parts.store("segment", DiskParts.payload("segment", byteCount: 20_000))
        #expect(try keysInOrderOfUse(parts, among: keys) == ["file", "inline", "segment"])
        try markUsed(parts, "file")
        #expect(try keysInOrderOfUse(parts, among: keys) == ["inline", "segment", "file"])
        for (key, byteCount) in [("inline", 100), ("segment", 20_000), ("file", 100_000)] {
            #expect(try parts.read(key) == DiskParts.payload(key, byteCount: byteCount), "\(key)")
        }
    }

    @Test func aRowIDAtTheTopOfTheRangeBreaksNoWriteAndDropsNothing() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let keys = ["a", "b", "damaged"]
        for key in keys { try parts.store(key, DiskParts.payload(key, byteCount: 100)) }
        let damaged = try EntryFiles.keyHash("damaged")
        try parts.index.withDatabase(writing: true) { connection in
            let update = try connection.uncachedStatement("UPDATE entries SET rowid = 9223372036854775807 WHERE hash = ?1")
            defer { update.reset() }
            update.bind(1, damaged)
            try update.run()
        }
        // No rowid is left above the largest: a mark dates the entry without moving it.
        parts.clock.advance(by: 100)
        try markUsed(parts, "a")
        #expect(try keysInOrderOfUse(parts, among: keys) == ["a", "b", "damaged"])
        let lastUsed = try parts.index.withDatabase(writing: false) {
            try EntryTable(connection: $0).row(try EntryFiles.keyHash("a"))?.lastUsed
        }
        #expect(lastUsed == parts.clock.now.timeIntervalSinceReferenceDate)
        // A store still lands (SQLite picks a free rowid), and a mend drops no row for its rowid.
        try parts.store("c", DiskParts.payload("c", byteCount: 100))
        let wrong = try parts.index.withDatabase(writing: false) { try EntryTable(connection: $0).rowsWithWrongNumbers() }
        #expect(wrong.resized.isEmpty && wrong.damaged.isEmpty)
        for key in keys + ["c"] { #expect(try parts.read(key) == DiskParts.payload(key, byteCount: 100), "\(key)") }
    }
}
