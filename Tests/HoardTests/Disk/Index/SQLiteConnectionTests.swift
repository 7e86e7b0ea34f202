import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// How an ``SQLiteConnection`` waits for another connection's write lock: until its timeout and
/// no longer, not at all inside `withoutWaiting`, and often enough to take the lock between the
/// transactions of a connection that writes in a loop (what starved a trim's batches on a loaded
/// CI machine: SQLite's own handler retries only every 100 ms).
@Suite("SQLiteConnection: waiting for the write lock")
struct SQLiteConnectionTests {
    /// A WAL database with one table, in a folder of its own.
    private func makeDatabase(function: String = #function) throws -> (folder: TemporaryDirectory, path: String) {
        let folder = try TemporaryDirectory(function: function)
        let path = folder.path + "/test.sqlite"
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000, generation: 0)
        try connection.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x INTEGER)")
        return (folder, path)
    }

    private func insert(_ value: Int, on connection: SQLiteConnection) throws {
        try connection.writeTransaction { try connection.execute("INSERT INTO t VALUES (\(value))") }
    }

    @Test("A wait for a held lock lasts the timeout, then fails with SQLITE_BUSY; withoutWaiting fails at once")
    func waitsItsTimeout() throws {
        let (folder, path) = try makeDatabase()
        defer { folder.remove() }
        let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000, generation: 0)
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("ROLLBACK") }
        let waiter = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 400, generation: 0)

        let began = ContinuousClock.now
        #expect { try insert(1, on: waiter) } throws: { ($0 as? SQLiteError)?.isBusy == true }
        let waited = ContinuousClock.now - began
        #expect(waited >= .milliseconds(400))
        #expect(waited < .seconds(30))

        let patient = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 20_000, generation: 0)
        let tried = ContinuousClock.now
        #expect { try patient.withoutWaiting { try insert(2, on: patient) } } throws: { ($0 as? SQLiteError)?.isBusy == true }
        #expect(ContinuousClock.now - tried < .seconds(10), "withoutWaiting waited")
        // And it waits again afterwards: the lock freed meanwhile is taken.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { try? holder.execute("ROLLBACK") }
        try insert(3, on: patient)
    }

    @Test("A connection that waits takes the lock between the transactions of one writing in a loop")
    func takesTheLockFromALoop() throws {
        let (folder, path) = try makeDatabase()
        defer { folder.remove() }
        let looping = Lock(true)
        let loopCount = Lock(0)
        let finished = DispatchGroup()
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            guard let writer = try? SQLiteConnection(path: path, busyTimeoutMilliseconds: 30_000, generation: 0) else { return }
            while looping.withLock({ $0 }) {
                try? insert(0, on: writer)
                loopCount.withLock { $0 += 1 }
            }
        }
        defer {
            looping.withLock { $0 = false }
            finished.wait()
        }
        while loopCount.withLock({ $0 }) < 100 { usleep(1_000) }
        let waiter = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 2_000, generation: 0)
        var failures = 0
        for value in 1...200 {
            do { try insert(value, on: waiter) } catch { failures += 1 }
        }
        #expect(failures == 0, "\(failures) of 200 transactions waited out 2 s beside a writer that committed \(loopCount.withLock { $0 }) times")
    }
}
