import Foundation
import Testing

@testable import HoardCore

/// The usage count on its own: what a store reads in one statement is what the count and the row
/// say when read apart.
@Suite("UsageTable")
struct UsageTableTests {
    @Test func theCountAndARowReadTogetherAreWhatTheyAreReadApart() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        for (key, byteCount) in [("inline", 100), ("segment", 16_000), ("file", 500_000), ("segment2", 30_000)] {
            try parts.store(key, DiskParts.payload(key, byteCount: byteCount))
        }
        for key in ["inline", "segment", "file", "segment2", "missing"] {
            let hash = try EntryFiles.keyHash(key)
            let (together, apart) = try parts.index.withDatabase(writing: false) { connection in
                let usage = UsageTable(connection: connection)
                return (
                    try usage.current(withRowOf: hash),
                    (usage: try usage.current(), row: try EntryTable(connection: connection).row(hash))
                )
            }
            #expect(together.usage == apart.usage, "\(key)")
            #expect(together.row == apart.row, "\(key)")
            #expect((together.row == nil) == (key == "missing"))
        }
        // Entry files and segment files alike: 500,000 bytes of payload in a file, 46,000 in segments.
        let usage = try parts.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
        #expect(usage.fileBytes > 500_000 && usage.fileBytes < 501_000)
        #expect(usage.liveSegmentBytes > 46_000 && usage.liveSegmentBytes < 47_000)
        #expect(usage.segmentFileBytes == usage.liveSegmentBytes)
        #expect(usage.inlineBytes > 100 && usage.inlineBytes < 200)
        #expect(usage.entryCount == 4)
    }
}
