import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// The index's log on its own: a writer cuts back a log that readers let grow past its limit, and
/// what a read writes (its recency marks) never waits for that, nor adds to it.
@Suite("DiskIndex: the log cut back")
struct LogCutBackTests {
    /// Two indexes on one new folder (two processes' views) with a log limit of 64 KiB.
    struct Folder {
        let directory: TemporaryDirectory
        let index: DiskIndex
        let other: DiskIndex

        init(function: String = #function) throws {
            directory = try TemporaryDirectory(function: function)
            let root = directory.cacheURL.path(percentEncoded: false)
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            index = DiskIndex(rootPath: root, sizeLimit: 1 << 20, writeLockTimeout: 5)
            try index.prepare()
            other = DiskIndex(rootPath: root, sizeLimit: 1 << 20, writeLockTimeout: 5)
        }

        var logSize: Int { (try? FileManager.default.attributesOfItem(atPath: index.path + "-wal")[.size] as? Int) ?? 0 }

        /// Runs `body` while a reader of the other index holds its snapshot: no checkpoint can
        /// start the log over meanwhile. Before it, one transaction takes the log past its limit.
        func withLogHeldPastItsLimit(_ body: () throws -> Void) throws {
            try other.withConnection(writing: false) { reader in
                let held = try reader.uncachedStatement("SELECT count(*) FROM entries")
                defer { held.reset() }
                _ = try held.step()
                // One transaction that does not wait: a cut-back after it would.
                try index.withConnection(writing: true, waiting: false) { connection in
                    for number in 0..<20_000 { try connection.execute("INSERT INTO segments (length) VALUES (\(number))") }
                }
                #expect(logSize > index.log.byteLimit)
                try body()
            }
        }

        func insertWithoutWaiting() -> Void? {
            index.withDatabaseWithoutWaiting { try $0.execute("INSERT INTO segments (length) VALUES (-7)") }
        }
    }

    @Test func aWriterCutsAnOverlongLogBackOnceTheReaderHasGone() throws {
        let folder = try Folder()
        defer { folder.directory.remove() }
        try folder.withLogHeldPastItsLimit {}
        try folder.index.withConnection(writing: true) { try $0.execute("INSERT INTO segments (length) VALUES (1)") }
        #expect(folder.logSize <= folder.index.log.byteLimit)
    }

    /// A writer cuts the log back before it asks for the write lock, but another may commit in
    /// between: two CI runs found the two-process bound test's log 2-3 pages past twice its
    /// limit. Holding the lock, a writer that finds the log past its limit cuts it back first.
    @Test func aWriterThatFindsAnOverlongLogOnceItHoldsTheLockCutsItBackFirst() throws {
        let folder = try Folder()
        defer { folder.directory.remove() }
        try folder.withLogHeldPastItsLimit {}
        #expect(folder.logSize > folder.index.log.byteLimit)
        // Straight to a transaction, with no cut-back before it: as after another writer's commit.
        try folder.index.withConnection(writing: false) { connection in
            try connection.writeTransaction { try connection.execute("INSERT INTO segments (length) VALUES (-9)") }
        }
        #expect(folder.logSize <= folder.index.log.byteLimit)
        // A connection that must not wait fails as busy rather than add to a log held past its limit.
        try folder.withLogHeldPastItsLimit {
            let before = folder.logSize
            #expect(throws: SQLiteError.self) {
                try folder.index.withConnection(writing: false) { connection in
                    try connection.withoutWaiting {
                        try connection.writeTransaction { try connection.execute("INSERT INTO segments (length) VALUES (-9)") }
                    }
                }
            }
            #expect(folder.logSize == before)
        }
    }

    /// A CI run's two-process bound test found the log 2.2 pages past twice its limit: a reader
    /// of one process held it while the other's recency marks went in, a transaction of a few
    /// rows after another, with no cut-back between them.
    @Test func whatAReadWritesNeitherWaitsForAnOverlongLogNorAddsToIt() throws {
        let folder = try Folder()
        defer { folder.directory.remove() }
        try folder.withLogHeldPastItsLimit {
            let before = folder.logSize
            let start = ContinuousClock.now
            for _ in 0..<50 { #expect(folder.insertWithoutWaiting() == nil) }
            #expect(ContinuousClock.now - start < .seconds(2.5))
            #expect(folder.logSize == before)
        }
        // The reader gone, such a write cuts the log back first, then goes in.
        #expect(folder.insertWithoutWaiting() != nil)
        #expect(folder.logSize <= folder.index.log.byteLimit)
        let count = try folder.index.withConnection(writing: false) { connection in
            let statement = try connection.uncachedStatement("SELECT count(*) FROM segments WHERE length = -7")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int(0)
        }
        #expect(count == 1)
    }
}
