import Foundation
import Testing

@testable import HoardCore

/// The writer and the reader on their own: each size lands where it belongs, reads back byte for
/// byte, and an overwrite that moves a record leaves nothing of the old one behind.
@Suite("RecordWriter and RecordReader")
struct RecordWriterTests {
    @Test(arguments: [(100, IndexRow.Placement.inline), (16_000, .segment), (500_000, .file)])
    func eachSizeLandsWhereItBelongs(byteCount: Int, placement: IndexRow.Placement) throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let payload = DiskParts.payload("key", byteCount: byteCount)
        try parts.store("key", payload)
        #expect(try parts.placement("key") == placement)
        #expect(try parts.read("key") == payload)
        #expect(try parts.read("other") == nil)
    }

    @Test func overwritesMoveARecordBetweenPlacesAndLeaveNothingBehind() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let fileName = try EntryFiles.fileName(forKey: "key")
        for (round, byteCount) in [500_000, 100, 16_000, 500_000, 16_000, 100].enumerated() {
            let payload = DiskParts.payload("key\(round)", byteCount: byteCount)
            let usage = try parts.store("key", payload)
            #expect(try parts.read("key") == payload)
            let fileExpected = byteCount > parts.configuration.inlineEntryLimit
            #expect((parts.files.status(of: fileName) != nil) == fileExpected)
            // Files counted are the file there is now; segment bytes include the dead ones.
            let deadBytes = try parts.segments.deadByteCount()
            let segmentBytes = try parts.index.withDatabase(writing: false) {
                try SegmentTable(connection: $0).lengths().values.reduce(0, +)
            }
            #expect(usage.fileBytes + usage.segmentFileBytes == segmentBytes + (fileExpected ? 48 + 3 + byteCount : 0))
            #expect(deadBytes <= segmentBytes)
        }
    }

    @Test func anExpiredRecordIsAMissAndIsRemoved() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        for (key, byteCount) in [("inline", 100), ("segment", 16_000), ("file", 500_000)] {
            let header = parts.header(key, byteCount: byteCount, expiring: parts.clock.now.addingTimeInterval(10))
            _ = try parts.writer.store(
                header: header, payload: DiskParts.payload(key, byteCount: byteCount), hash: EntryFiles.keyHash(key),
                now: parts.clock.now)
        }
        parts.clock.advance(by: 10)
        for key in ["inline", "segment", "file"] {
            #expect(try parts.read(key) == nil)
            #expect(try parts.placement(key) == nil)
        }
    }

    /// A caller's framing at the start of the payload is left out of what the read hands over,
    /// wherever the record lies; what framing asks beyond the payload is held to it.
    @Test(arguments: [100, 16_000, 500_000])
    func framingIsLeftOutOfThePayloadHandedOver(byteCount: Int) throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let payload = DiskParts.payload("key", byteCount: byteCount)
        try parts.store("key", payload)
        for (asked, left) in [(0, 0), (7, 7), (-3, 0), (byteCount + 5, byteCount)] {
            var seen: [UInt8] = []
            let read = try parts.reader.read(forKey: "key", options: [.payload], now: parts.clock.now) { bytes in
                seen = Array(bytes)
                return asked
            }
            #expect(seen == Array(payload))
            #expect(read?.payload == payload.dropFirst(left))
            #expect(read?.payload.startIndex == 0)
        }
    }
}
