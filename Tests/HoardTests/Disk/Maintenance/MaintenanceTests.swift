import Foundation
import Testing

@testable import HoardCore

/// Maintenance on its own: the count it keeps follows the bytes on disk, a trim brings them under
/// the limit by recency, and removal by selection takes exactly what it picks.
@Suite("Maintenance")
struct MaintenanceTests {
    @Test func aTrimComesUnderTheLimitKeepingTheMostRecentlyUsed() throws {
        let limit = 2 << 20
        let parts = try DiskParts(sizeLimit: limit)
        defer { parts.remove() }
        // 6 MiB through the writer alone, which does not trim: records inline, in segments, in files.
        let sizes = [1_000, 20_000, 150_000]
        var keys: [String] = []
        for index in 0..<60 {
            let key = "k\(index)"
            keys.append(key)
            try parts.store(key, DiskParts.payload(key, byteCount: sizes[index % 3] * (index % 2 + 1) / 2 + 1_000))
            parts.clock.advance(by: 1)
        }
        #expect(try parts.maintenance.recount().counted > limit)
        try parts.maintenance.trim()
        let (counted, onDisk) = try parts.maintenance.recount()
        #expect(counted <= parts.configuration.lowWaterMark)
        #expect(onDisk <= limit + parts.configuration.slackByteCount)
        // The survivors are the newest, each read back whole; the oldest went first.
        let survivors = keys.filter { (try? parts.placement($0)) != nil }
        #expect(!survivors.isEmpty)
        #expect(survivors == Array(keys.suffix(survivors.count)))
        for key in survivors {
            let expected = DiskParts.payload(key, byteCount: sizes[Int(key.dropFirst())! % 3] * (Int(key.dropFirst())! % 2 + 1) / 2 + 1_000)
            #expect(try parts.read(key) == expected)
        }
    }

    @Test func aRecountMendsADamagedSizeInsteadOfEmptyingTheCache() throws {
        let parts = try DiskParts(sizeLimit: 4 << 20)
        defer { parts.remove() }
        for index in 0..<20 { try parts.store("k\(index)", DiskParts.payload("k\(index)", byteCount: 5_000)) }
        let hash = try EntryFiles.keyHash("k3")
        try parts.index.withDatabase(writing: true) { connection in
            let update = try connection.uncachedStatement("UPDATE entries SET size = 9223372036854775807 WHERE hash = ?1")
            defer { update.reset() }
            update.bind(1, hash)
            while try update.step() {}
        }
        #expect(try parts.maintenance.recount().counted < 4 << 20)
        try parts.maintenance.trim()
        #expect(try parts.placement("k3") == nil)
        for index in 0..<20 where index != 3 {
            #expect(try parts.read("k\(index)") == DiskParts.payload("k\(index)", byteCount: 5_000))
        }
    }

    @Test func aRecountCorrectsRunningTotalsThatDriftedFromTheRows() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        for (index, byteCount) in [100, 16_000, 500_000, 300, 30_000].enumerated() {
            try parts.store("k\(index)", DiskParts.payload("k\(index)", byteCount: byteCount))
        }
        let right = try parts.maintenance.currentUsage()
        // What a tool writing the database without its triggers leaves.
        try parts.index.withDatabase(writing: true) { connection in
            try connection.execute(
                "UPDATE usage SET count = count + 7, bytes = bytes - 1000, inline = inline + 5; UPDATE segments SET live = live + 99")
        }
        #expect(try parts.maintenance.currentUsage() != right)
        try parts.maintenance.recount()
        #expect(try parts.maintenance.currentUsage() == right)
        #expect(parts.log.lines(containing: "Corrected the disk cache index's running totals").count == 1)
        try parts.maintenance.recount()  // nothing more to correct
        #expect(parts.log.lines(containing: "Corrected the disk cache index's running totals").count == 1)
    }

    @Test func removalBySelectionTakesExactlyWhatItPicks() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        for index in 0..<30 {
            try parts.store("\(index % 2 == 0 ? "even" : "odd")/\(index)", DiskParts.payload("\(index)", byteCount: 100 + index * 5_000))
        }
        let removed = try parts.maintenance.removeEntries { key, _ in key.hasPrefix("odd/") }
        #expect(Set(removed) == Set((0..<30).filter { $0 % 2 == 1 }.map { "odd/\($0)" }))
        for index in 0..<30 {
            let key = "\(index % 2 == 0 ? "even" : "odd")/\(index)"
            let expected = index % 2 == 0 ? DiskParts.payload("\(index)", byteCount: 100 + index * 5_000) : nil
            #expect(try parts.read(key) == expected)
        }
        // What the removals left in older segments went back; the newest may keep some until it
        // is sealed by a trim over the limit.
        #expect(try parts.segments.deadByteCount() < parts.segments.byteLimit)
    }

    @Test func recordsAnotherProcessStoresInsideTheIndexCountAtOnce() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        #expect(parts.maintenance.estimatedByteCount() < 20_000)
        // Another process's records inside the index: written through a second set of parts.
        let other = try DiskCache.Parts(rootPath: parts.folder.rootPath, configuration: parts.configuration)
        for index in 0..<20 {
            let key = "other\(index)"
            try other.writer.store(
                header: parts.header(key, byteCount: 1_000), payload: DiskParts.payload(key, byteCount: 1_000),
                hash: try EntryFiles.keyHash(key), now: parts.clock.now)
        }
        #expect(try parts.placement("other0") == .inline)
        // The index's pages are shared: counted at the next read.
        let counted = parts.maintenance.estimatedByteCount()
        #expect(counted >= 20_000, "\(counted)")
    }
}
