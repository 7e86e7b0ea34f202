import CHoardSQLite
import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// A read never waits for a writer, and a store waits for a stalled one at most
/// its configured time, then fails with a typed error.
@Suite("DiskCache: a stalled writer", .serialized)
struct DiskCacheStalledWriterTests {
    /// Holds the index's write lock from a connection of its own, as a stopped process would.
    final class StalledWriter {
        let handle: OpaquePointer

        init(path: String) throws {
            var connection: OpaquePointer?
            guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let connection else {
                throw DiskCacheError.readFailed(path: path, call: "sqlite3_open_v2", errno: 0)
            }
            handle = connection
            guard sqlite3_exec(handle, "BEGIN IMMEDIATE; UPDATE entries SET used = used", nil, nil, nil) == SQLITE_OK else {
                sqlite3_close_v2(handle)
                throw DiskCacheError.readFailed(path: path, call: "BEGIN IMMEDIATE", errno: 0)
            }
        }

        func release() {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            sqlite3_close_v2(handle)
        }
    }

    @Test("Reads of entries due a recency mark answer at once while another connection holds the write lock")
    func readsDoNotWait() throws {
        let clock = TestClock()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var configuration = DiskCache.Configuration(now: clock.closure)
        // Long, so that a read that waited (60 s) stands far apart from one stalled by a loaded
        // 2-core machine (tens of seconds).
        configuration.writeLockTimeout = 60
        let cache = try DiskCache(directory: folder.cacheURL, configuration: configuration)
        let values = [100, 10_000, 100_000].map { StressValue.make(key: "key-\($0)", version: 1, byteCount: $0) }
        for (index, value) in values.enumerated() { try cache.store(value, forKey: "key-\([100, 10_000, 100_000][index])") }
        clock.advance(by: 120)  // every entry is due a recency mark
        let stalled = try StalledWriter(path: cache.index.path)
        defer { stalled.release() }
        let started = ContinuousClock.now
        for (index, value) in values.enumerated() {
            #expect(try cache.data(forKey: "key-\([100, 10_000, 100_000][index])") == value)
        }
        // A read takes microseconds; the margin is for a loaded machine, far below the 60 s a wait costs.
        #expect(ContinuousClock.now - started < .seconds(30), "reads took \(ContinuousClock.now - started)")
    }

    @Test("A store waits at most writeLockTimeout for a stalled writer, then fails with indexBusy")
    func storeFailsAfterTimeout() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var configuration = DiskCache.Configuration()
        configuration.writeLockTimeout = 0.5
        let cache = try DiskCache(directory: folder.cacheURL, configuration: configuration)
        try cache.store(Data("before".utf8), forKey: "before")
        let stalled = try StalledWriter(path: cache.index.path)
        for size in [100, 10_000, 100_000] {
            let started = ContinuousClock.now
            do {
                try cache.store(Data(count: size), forKey: "blocked-\(size)")
                Issue.record("a \(size)-byte store succeeded while the write lock was held")
            } catch let error as DiskCacheError {
                guard case .indexBusy = error else {
                    Issue.record("\(size) bytes: \(error)")
                    continue
                }
            }
            let waited = ContinuousClock.now - started
            // The upper bound only catches an endless wait: a loaded 2-core machine may stall the test
            // for tens of seconds.
            #expect(waited >= .milliseconds(400) && waited < .seconds(60), "\(size) bytes: waited \(waited)")
        }
        stalled.release()
        try cache.store(Data("after".utf8), forKey: "after")
        #expect(try cache.data(forKey: "after") == Data("after".utf8))
        #expect(try cache.data(forKey: "before") == Data("before".utf8))
    }

    @Test("A Hoard passes its diskWriteLockTimeout on, and validates it")
    func hoardTimeout() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var configuration = Hoard.Configuration(name: "stalled", directory: folder.cacheURL)
        configuration.diskWriteLockTimeout = 0.3
        let hoard = try Hoard(configuration: configuration)
        #expect(try hoard.disk.get().configuration.writeLockTimeout == 0.3)
        for bad in [-1, .nan, 7200] as [TimeInterval] {
            configuration.diskWriteLockTimeout = bad
            #expect(throws: HoardError.self) { try Hoard(configuration: configuration) }
        }
    }

    @Test("writeLockTimeout is validated")
    func timeoutValidated() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for bad in [-1, .nan, .infinity, 3601] as [TimeInterval] {
            var configuration = DiskCache.Configuration()
            configuration.writeLockTimeout = bad
            #expect(throws: DiskCacheError.self) { try DiskCache(directory: folder.cacheURL, configuration: configuration) }
        }
    }
}
