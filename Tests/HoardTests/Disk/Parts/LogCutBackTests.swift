import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// The index's log on its own: a writer cuts back a log that readers let grow past its limit (issue
/// 51, item 2), and what a read writes (its recency mark) never waits for that.
@Suite("DiskIndex: the log cut back")
struct LogCutBackTests {
    @Test func aWriterCutsAnOverlongLogBackAndAReadsOwnWriteNeverWaitsForIt() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = folder.cacheURL.path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let index = DiskIndex(rootPath: root, sizeLimit: 1 << 20, writeLockTimeout: 5)  // a log limit of 64 KiB
        try index.prepare()
        let logSize = { (try? FileManager.default.attributesOfItem(atPath: index.path + "-wal")[.size] as? Int) ?? 0 }
        // A reader of another process (another index on the folder) holds its snapshot: no
        // checkpoint can start the log over meanwhile.
        let other = DiskIndex(rootPath: root, sizeLimit: 1 << 20, writeLockTimeout: 5)
        try other.withConnection(writing: false) { reader in
            let held = try reader.uncachedStatement("SELECT count(*) FROM entries")
            defer { held.reset() }
            _ = try held.step()
            for number in 0..<300 {
                try index.withConnection(writing: true, waiting: false) {
                    try $0.execute("INSERT INTO segments (length) VALUES (\(number))")
                }
            }
            #expect(logSize() > index.log.byteLimit)
            // What a read writes (its recency mark) does not wait for the reader to go.
            let start = ContinuousClock.now
            let marked = index.withDatabaseWithoutWaiting { try $0.execute("UPDATE usage SET bytes = bytes WHERE id = 1") }
            #expect(marked != nil)
            #expect(ContinuousClock.now - start < .seconds(2.5))
        }
        // The reader gone, the next writer cuts the log back.
        try index.withConnection(writing: true) { try $0.execute("INSERT INTO segments (length) VALUES (1)") }
        #expect(logSize() <= index.log.byteLimit)
    }
}
