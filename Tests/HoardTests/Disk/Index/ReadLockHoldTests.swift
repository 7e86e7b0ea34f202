import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// The read transaction the index keeps open between lookups (``ReadLockHold``): it keeps a
/// checkpoint from emptying the log only while it is open, it ends by itself and at this process's
/// next write, and it never makes a read miss what another cache wrote meanwhile.
@Suite("DiskCache index read hold")
struct ReadLockHoldTests {
    private func makeFixture(function: String = #function) throws -> DiskCacheFixture {
        try DiskCacheFixture(inlineEntryLimit: DiskCache.Configuration.defaultInlineEntryLimit, function: function)
    }

    /// A `PRAGMA wal_checkpoint(TRUNCATE)` from a connection of its own that does not wait: whether
    /// a reader kept it from copying and emptying the whole log.
    private func truncatingCheckpointIsBlocked(_ cache: DiskCache) throws -> Bool {
        let connection = try SQLiteConnection(path: cache.index.path, busyTimeoutMilliseconds: 0, generation: 0)
        let checkpoint = try connection.uncachedStatement("PRAGMA wal_checkpoint(TRUNCATE)")
        defer { checkpoint.reset() }
        #expect(try checkpoint.step())
        return checkpoint.int(0) != 0
    }

    private func logByteCount(_ cache: DiskCache) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.index.path + "-wal")
        return try #require(attributes[.size] as? Int)
    }

    @Test("While a hold is open a checkpoint cannot empty the log; once it ends, one can")
    func holdKeepsCheckpointsBack() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        // Commits in the log that a checkpoint has yet to copy (a hold on an empty log keeps none back).
        func commit(_ round: Int) throws {
            for index in 0..<20 {
                try fixture.cache.store(Data(repeating: UInt8(index), count: 3000 + round), forKey: "k\(index)")
            }
            #expect(try logByteCount(fixture.cache) > 0)
        }
        let path = fixture.cache.index.path
        let hold = ReadLockHold(duration: .seconds(60), logPath: path + "-wal", logByteLimit: 1 << 30)
        let connect = { @Sendable (generation: Int) in
            try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0, generation: generation)
        }

        try commit(0)
        #expect(!hold.begin(generation: 0, connect: connect), "a first read takes no hold")
        #expect(try !truncatingCheckpointIsBlocked(fixture.cache))
        try commit(1)
        #expect(hold.begin(generation: 0, connect: connect), "the second does")
        #expect(!hold.begin(generation: 0, connect: connect), "already open")
        #expect(try truncatingCheckpointIsBlocked(fixture.cache))

        hold.endForWrite()
        #expect(try !truncatingCheckpointIsBlocked(fixture.cache))
        #expect(try logByteCount(fixture.cache) == 0)

        // A hold of a newer generation (the index was replaced) ends the old one and opens anew.
        try commit(2)
        #expect(!hold.begin(generation: 0, connect: connect))
        #expect(hold.begin(generation: 0, connect: connect))
        #expect(hold.begin(generation: 1, connect: connect))
        #expect(try truncatingCheckpointIsBlocked(fixture.cache))
        hold.close()
        #expect(try !truncatingCheckpointIsBlocked(fixture.cache))
    }

    @Test("No hold begins while the log is past its limit (one that could not start over), until it is cut back")
    func noHoldOverLongLog() throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        for index in 0..<20 {
            try fixture.cache.store(Data(repeating: UInt8(index), count: 3000), forKey: "k\(index)")
        }
        let path = fixture.cache.index.path
        let limit = 16 * 1024
        #expect(try logByteCount(fixture.cache) > limit)
        let hold = ReadLockHold(duration: .seconds(60), logPath: path + "-wal", logByteLimit: limit)
        let connect = { @Sendable (generation: Int) in
            try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0, generation: generation)
        }
        for _ in 0..<3 {
            #expect(!hold.begin(generation: 0, connect: connect))
        }
        #expect(try !truncatingCheckpointIsBlocked(fixture.cache))
        #expect(try logByteCount(fixture.cache) == 0)
        let (seconds, attoseconds) = ReadLockHold.retryDelay.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) * 1e-18 + 0.05)
        #expect(hold.begin(generation: 0, connect: connect), "a log cut back lets the hold begin")
        hold.close()
    }

    @Test("A hold is not taken on a database that is not in WAL mode, and is not retried at once")
    func noHoldOutsideWAL() throws {
        let folder = try TemporaryDirectory(function: #function)
        defer { folder.remove() }
        let path = folder.path + "/plain.sqlite"
        let plain = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0, generation: 0)
        try plain.execute("CREATE TABLE t (x INTEGER)")
        let connections = Lock(0)
        let hold = ReadLockHold(duration: .seconds(60), logPath: path + "-wal", logByteLimit: 1 << 30)
        let connect = { @Sendable (generation: Int) -> SQLiteConnection in
            connections.withLock { $0 += 1 }
            return try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0, generation: generation)
        }
        for _ in 0..<3 {
            #expect(!hold.begin(generation: 0, connect: connect))
        }
        #expect(connections.withLock { $0 } == 1, "tried at the second read only")
        // Nothing is left holding the file: a write that needs it alone goes through without waiting.
        try plain.execute("INSERT INTO t VALUES (1)")
    }

    @Test("Reads open the hold; the cache's next write ends it, and it ends by itself")
    func readsOpenWriteEnds() async throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let value = Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try fixture.cache.store(value, forKey: "a")
        for _ in 0..<2 { #expect(try fixture.cache.data(forKey: "a") == value) }
        try fixture.cache.store(value, forKey: "b")
        #expect(try !truncatingCheckpointIsBlocked(fixture.cache), "the store ended the hold")

        for _ in 0..<2 { #expect(try fixture.cache.data(forKey: "b") == value) }
        // A loaded 2-core machine may stall the hold's timer for tens of seconds.
        let deadline = ContinuousClock.now + .seconds(120)
        var blocked = true
        while blocked, ContinuousClock.now < deadline {
            blocked = try truncatingCheckpointIsBlocked(fixture.cache)
            if blocked { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(!blocked, "the hold outlived \(DiskIndex.readHoldDuration) by seconds")
    }

    @Test(
        "While one cache holds the index open, it reads what another cache on the folder writes, at once",
        arguments: [100, 16_384])
    func readsStayCurrent(byteCount: Int) throws {
        let fixture = try makeFixture()
        defer { fixture.remove() }
        let other = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        for round in 0..<20 {
            let value = Data((0..<byteCount).map { UInt8(truncatingIfNeeded: $0 &+ round) })
            try other.store(value, forKey: "shared")
            #expect(try fixture.cache.data(forKey: "shared") == value, "round \(round)")
        }
        try other.remove(forKey: "shared")
        #expect(try fixture.cache.data(forKey: "shared") == nil)
    }
}
