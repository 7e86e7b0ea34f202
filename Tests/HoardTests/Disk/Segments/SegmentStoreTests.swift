import Foundation
import Testing

@testable import HoardCore

/// The segment store on its own: appends land where it says and never move, the dead bytes that
/// removals leave are counted, and a compaction gives them back with every live record intact.
@Suite("SegmentStore")
struct SegmentStoreTests {
    /// Appends the record of `key` in one write transaction, with its row, as the writer does.
    private func append(_ key: String, byteCount: Int, in parts: DiskParts) throws -> (SegmentLocation, [UInt8]) {
        let (header, record) = CacheRecord.encode(
            header: parts.header(key, byteCount: byteCount), payload: DiskParts.payload(key, byteCount: byteCount))
        let hash = try EntryFiles.keyHash(key)
        let location = try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                let location = try record.withUnsafeBytes { try parts.segments.append($0, on: connection) }
                try EntryTable(connection: connection).upsert(
                    hash: hash, header: header, used: parts.clock.now, record: nil, segment: location)
                return location
            }
        }
        return (location, record)
    }

    private func read(_ key: String, at location: SegmentLocation, byteCount: Int, in parts: DiskParts) throws -> Data? {
        guard case .found(let found) = try parts.segments.read(
            at: location, byteCount: byteCount, expectedKey: key, keepExpired: false, now: parts.clock.now)
        else { return nil }
        return found.payload
    }

    @Test func appendedRecordsReadBackAndStayPut() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        var appended: [(String, SegmentLocation, [UInt8])] = []
        for index in 0..<40 {
            let key = "k\(index)"
            let (location, record) = try append(key, byteCount: 2_000 + index * 300, in: parts)
            appended.append((key, location, record))
        }
        // Each record at the place the append gave, unchanged by the appends after it.
        for (key, location, record) in appended {
            let payload = try read(key, at: location, byteCount: record.count, in: parts)
            #expect(payload == DiskParts.payload(key, byteCount: record.count - 48 - key.utf8.count))
        }
        let offsets = appended.map(\.1.offset)
        #expect(offsets == offsets.sorted() && Set(offsets).count == offsets.count)
        #expect(try parts.segments.deadByteCount() == 0)
        // Another key's read of the same place is refused.
        let (_, first, record) = appended[0]
        guard case .damaged = try parts.segments.read(
            at: first, byteCount: record.count, expectedKey: "k1", keepExpired: false, now: parts.clock.now)
        else {
            Issue.record("a record read as another key's")
            return
        }
    }

    @Test func removedRecordsAreDeadBytesUntilACompactionGivesThemBack() throws {
        let parts = try DiskParts(sizeLimit: 4 << 20)  // segments of 1 MiB
        defer { parts.remove() }
        var records: [String: (SegmentLocation, Int)] = [:]
        for index in 0..<300 {
            let key = "k\(index)"
            let (location, record) = try append(key, byteCount: 10_000, in: parts)
            records[key] = (location, record.count)
        }
        let segmentCount = Set(records.values.map(\.0.id)).count
        #expect(segmentCount >= 3)
        // Remove two records in three: their bytes are dead, counted, and still on disk.
        var removedBytes = 0
        try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                for index in 0..<300 where index % 3 != 0 {
                    try EntryTable(connection: connection).delete(EntryFiles.keyHash("k\(index)"))
                    removedBytes += records["k\(index)"]!.1
                }
            }
        }
        #expect(try parts.segments.deadByteCount() == removedBytes)
        let removedFiles = try parts.segments.compact(sealingNewest: true, anyDeadBytes: true)
        #expect(removedFiles >= segmentCount - 1)
        #expect(try parts.segments.deadByteCount() == 0)
        // Every live record, wherever the compaction moved it, reads back whole.
        for index in stride(from: 0, to: 300, by: 3) {
            #expect(try parts.read("k\(index)") == DiskParts.payload("k\(index)", byteCount: 10_000))
        }
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: parts.folder.rootPath)
            .filter { $0.hasPrefix("segment-") }
            .map { try FileManager.default.attributesOfItem(atPath: parts.folder.rootPath + "/" + $0)[.size] as? Int ?? 0 }
            .reduce(0, +)
        #expect(onDisk == stride(from: 0, to: 300, by: 3).map { records["k\($0)"]!.1 }.reduce(0, +))
    }

    @Test func aSegmentReplacedByALinkIsLeftAloneAndANewOneStarted() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let (first, _) = try append("a", byteCount: 3_000, in: parts)
        let outside = parts.directory.url.appending(path: "outside").path(percentEncoded: false)
        _ = FileManager.default.createFile(atPath: outside, contents: Data("keep".utf8))
        let path = parts.segments.path(of: first.id)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        parts.segments.files.forgetAll()
        let (second, _) = try append("b", byteCount: 3_000, in: parts)
        #expect(second.id != first.id)
        #expect(try parts.read("b") == DiskParts.payload("b", byteCount: 3_000))
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep")
        #expect(try parts.read("a") == nil)
    }
}
