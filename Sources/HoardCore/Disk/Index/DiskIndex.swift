import CHoardSQLite
import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk cache's index: an SQLite database (`index.sqlite` in the cache folder, in WAL mode)
/// with one row per entry, holding the entry's record itself when it is small.
///
/// Rows are keyed by the SHA-256 of the entry's key and hold the key, the record's length, the
/// creation, expiration and last-use dates, and where the record is (the same self-checking bytes
/// an entry file holds: see ``CacheRecord/Header``): the whole record when it is smaller than
/// ``SegmentStore/recordThreshold``, its segment file and offset when it is in one, or neither
/// when the entry lives in a file of its own. See the DocC article *Disk format* for the crash story.
///
/// Invariant: every connection it hands out is of the database now at ``path`` (a database replaced
/// or deleted behind its back is noticed within ``identityCheckInterval``) and waits for another
/// writer at most the busy timeout; the statements themselves are in `EntryTable`, `SegmentTable`,
/// `UsageTable` and `DatabaseFile`.
///
/// Connections are pooled: each caller takes one, uses it alone, and gives it back. When the
/// database is rebuilt (it was damaged, see ``discardDatabase(openedAs:)``), connections of the
/// old generation are closed as they come back; another process notices a rebuilt file within a
/// second (``identityCheckInterval``) and reopens.
final class DiskIndex: Sendable {
    /// The index database's file name in the cache folder; SQLite adds `-wal` and `-shm` beside it.
    static let fileName = "index.sqlite"
    /// The files SQLite keeps beside the database.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]
    /// How often a process checks that the database file is still the one its connections opened.
    static let identityCheckInterval: Duration = .seconds(1)
    /// The database's page size, set when it is created: SQLite's default. Larger pages read large
    /// records a little faster and store small ones markedly slower (the DocC article "Measurements
    /// behind the design", "Figures behind the source's choices").
    static let pageByteCount = 4096

    /// The schema this version writes, kept in `PRAGMA user_version`: 1 kept every small record
    /// inside the index, 2 adds segment files for records from ``SegmentStore/recordThreshold`` on,
    /// 3 adds the `usage` row: the bytes segment and entry files take (see ``UsageTable``), 4 keeps
    /// the rows in order of use by their rowid instead of an index on the last-use date (see
    /// ``EntryTable``), 5 keeps running totals (rows, bytes by place, each segment's live bytes)
    /// by triggers, so that nothing a store or a process start does reads every row (see
    /// ``IndexSchema/runningTotals``).
    static let schemaVersion = 5

    /// The database's path.
    let path: String
    /// The write-ahead log: its limit, and the cut-back writers run (see ``IndexLog``).
    let log: IndexLog
    /// How long a connection waits for another's write before failing with `SQLITE_BUSY`.
    let busyTimeoutMilliseconds: Int32
    /// The cache folder's path.
    private let rootPath: String
    private let pool = Lock(Pool())
    /// Whether a rebuild is under way in this process (see ``beginRebuild()``).
    private let rebuilding = Lock(false)
    /// The read transaction kept open between checkouts (see ``ReadLockHold``).
    private let readHold: ReadLockHold
    /// The room a clean-up on a full disk gives the log (see ``withDatabaseForCleanup(_:)``).
    let reserve: SpaceReserve
    /// What ``withDatabase(writing:_:)`` runs when it finds the database damaged (see ``setRepair(_:)``).
    private let repair = Lock<Repair?>(nil)

    /// Rebuilds a damaged index (the one the connection that found it had open, when known):
    /// what maintenance provides.
    typealias Repair = @Sendable (SQLiteError, SQLiteConnection.FileIdentity?) throws -> Void
    /// How long ``readHold`` stays open after it begins. Long enough to span thousands of
    /// lookups, short enough that the commits it keeps from a checkpoint stay few.
    static let readHoldDuration: Duration = .milliseconds(20)

    private struct Pool {
        var idle: [SQLiteConnection] = []
        var generation = 0
        /// When the file's identity is next due for a check.
        var nextIdentityCheck = MonotonicInstant(nanoseconds: 0)
    }

    /// Creates the index of the cache in `rootPath`; nothing is opened until first used.
    ///
    /// - Parameters:
    ///   - sizeLimit: The cache's limit, which sets the write-ahead log's (see
    ///     ``IndexLog/byteLimit(forSizeLimit:)``).
    ///   - writeLockTimeout: How long a connection waits for another's write, in seconds.
    init(rootPath: String, sizeLimit: Int = 256 << 20, writeLockTimeout: Double = 2) {
        self.rootPath = rootPath
        path = rootPath + "/" + Self.fileName
        busyTimeoutMilliseconds = Int32(min(max(writeLockTimeout * 1000, 0), 3_600_000))
        log = IndexLog(
            path: path + "-wal", byteLimit: IndexLog.byteLimit(forSizeLimit: sizeLimit),
            busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        let logLimit = log.byteLimit
        // A log that started over as it should stays near the limit: one checkpoint's worth of
        // commits past it at most. Half as much again is a log that could not start over.
        readHold = ReadLockHold(
            duration: Self.readHoldDuration, logPath: path + "-wal", logByteLimit: logLimit + logLimit / 2)
        reserve = SpaceReserve(rootPath: rootPath, logByteLimit: logLimit)
    }

    deinit {
        readHold.close()  // a pending timer keeps the hold a few milliseconds more: not its connection
    }

    /// Creates the schema when the database is new, brings one of schema 1 (records inside the
    /// index only) to this version, and checks its version.
    ///
    /// - Returns: Whether the schema was created (the database was new or empty).
    /// - Throws: ``SQLiteError``; ``DiskCacheError/unsupportedFormat(path:marker:)`` for a schema
    ///   newer than this version knows.
    @discardableResult
    func prepare() throws -> Bool {
        // Processes that open a new folder at once make its schema one at a time: changing the
        // journal mode needs the database to itself, and SQLite refuses it at once (no busy wait)
        // while another connection upgrades a read.
        let folderLock = FolderLock(path: rootPath, waitingAtMost: .milliseconds(Int(busyTimeoutMilliseconds) + 5_000))
        defer { folderLock.unlock() }
        return try withConnection(writing: true) { connection in
            let found = try IndexSchema.version(on: connection)
            guard found <= Self.schemaVersion else {
                throw DiskCacheError.unsupportedFormat(path: path, marker: "index schema \(found)")
            }
            guard found < Self.schemaVersion else {
                try IndexSchema.checkTables(on: connection)
                return false
            }
            if found == 0 {
                // Only a new, empty database takes auto_vacuum; WAL mode is then kept in the file.
                try connection.execute("PRAGMA page_size = \(Self.pageByteCount); PRAGMA auto_vacuum = INCREMENTAL")
                try IndexSchema.setWALMode(on: connection, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            }
            return try connection.writeTransaction {
                // Another process may have done it meanwhile: the version is read again under the lock.
                try IndexSchema.bringUpToDate(on: connection, rootPath: rootPath)
            }
        }
    }

    /// Runs `body` with a connection of the current generation, taken from the pool (or opened)
    /// and given back afterwards.
    ///
    /// Readers open ``readHold`` (from the second read in a row) so that the reads after it take
    /// no system lock; a writer ends it, so that the checkpoint after its commit can copy every
    /// commit into the database file.
    ///
    /// - Parameters:
    ///   - writing: Whether `body` may write.
    ///   - waiting: Whether a write may wait to cut the log back (see ``IndexLog/cutBack(on:)``); not
    ///     for what a read writes, which runs in one write transaction that never waits (for the
    ///     log nor for the lock) and fails rather than add to a log past its limit (see
    ///     ``SQLiteConnection/writeTransaction(_:)``).
    /// - Throws: What `body` throws; ``SQLiteError`` when no connection can be opened.
    func withConnection<Result>(
        writing: Bool, waiting: Bool = true, _ body: (SQLiteConnection) throws -> Result
    ) throws -> Result {
        let connection = try checkOut()
        defer { checkIn(connection) }
        guard writing else {
            holdReadLock(generation: connection.generation)
            return try body(connection)
        }
        readHold.endForWrite()
        guard waiting else {
            return try connection.withoutWaiting { try connection.writeTransaction { try body(connection) } }
        }
        log.cutBack(on: connection)  // when the last writer could not
        let result = try body(connection)
        log.cutBack(on: connection)
        return result
    }

    /// Counts a read for ``readHold``, which opens unless it is open.
    private func holdReadLock(generation: Int) {
        _ = readHold.begin(generation: generation) { generation in
            try openConnection(generation: generation, busyTimeoutMilliseconds: 0)
        }
    }

    /// Removes the database files, if the file at ``path`` is still the one `identity` names (so
    /// that two processes that both found it damaged do not remove each other's rebuilt index),
    /// and starts a new generation: idle connections are closed, busy ones when they come back.
    ///
    /// Other processes still using the old files keep them (unlinked) until they notice.
    func discardDatabase(openedAs identity: SQLiteConnection.FileIdentity?) {
        pool.withLock { pool in
            if let identity, currentIdentity() != identity {
                // Already replaced: only this process's connections are stale.
            } else {
                for suffix in [""] + Self.companionSuffixes {
                    let file = path + suffix
                    if case .success(let status) = FileSystem.linkStatus(file), status.kind == .regular {
                        _ = FileSystem.removeFile(file)
                    }
                }
            }
            pool.generation += 1
            pool.idle.removeAll()
        }
        readHold.close()
    }

    /// Claims the rebuild of a damaged index for the caller; `false` when one is already under way
    /// in this process (a rebuild that finds its new index damaged too then fails instead of
    /// starting over without end). Pair with ``endRebuild()``.
    func beginRebuild() -> Bool {
        rebuilding.withLock { isRebuilding in
            defer { isRebuilding = true }
            return !isRebuilding
        }
    }

    /// Ends the rebuild ``beginRebuild()`` claimed.
    func endRebuild() {
        rebuilding.withLock { $0 = false }
    }

    /// Sets what ``withDatabase(writing:_:)`` runs to rebuild a damaged database (it should hold what it
    /// needs weakly: the index does not keep it alive).
    func setRepair(_ body: @escaping Repair) {
        repair.withLock { $0 = body }
    }

    /// Runs `body` on a connection. When the database turns out damaged it is rebuilt (by the
    /// ``setRepair(_:)`` closure, one rebuild at a time in a process) and `body` runs once more,
    /// on the new one.
    ///
    /// - Parameters:
    ///   - writing: Whether `body` writes: SQLite failures become
    ///     ``DiskCacheError/writeFailed(path:call:errno:)`` rather than `readFailed`.
    ///   - waiting: As for ``withConnection(writing:waiting:_:)``.
    /// - Throws: ``DiskCacheError`` for SQLite failures, and what `body` throws.
    func withDatabase<Result>(
        writing: Bool, waiting: Bool = true, _ body: (SQLiteConnection) throws -> Result
    ) throws -> Result {
        var identity: SQLiteConnection.FileIdentity?
        do {
            return try withConnection(writing: writing, waiting: waiting) { connection in
                identity = connection.fileIdentity
                return try body(connection)
            }
        } catch let error as SQLiteError where error.isCorruption && beginRebuild() {
            defer { endRebuild() }
            guard let repair = repair.withLock({ $0 }) else { throw self.error(for: error, writing: writing) }
            try repair(error, identity)
            do {
                return try withConnection(writing: writing, waiting: waiting, body)
            } catch let error as SQLiteError {
                throw self.error(for: error, writing: writing)
            }
        } catch let error as SQLiteError {
            throw self.error(for: error, writing: writing)
        }
    }

    /// Runs `body`, a clean-up that deletes rows; when the disk is full (SQLite needs log space to
    /// delete rows), it runs once more after removing the ``reserve`` and a checkpoint that gives
    /// the log's space back. A clean-up removes its files inside its transactions, before the
    /// commit, so each attempt frees what it can.
    ///
    /// - Throws: As ``withDatabase(writing:_:)``.
    func withDatabaseForCleanup<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        do {
            return try withDatabase(writing: true, body)
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            reserve.release()
            _ = try? withDatabase(writing: true) { try DatabaseFile(connection: $0).checkpoint(truncating: true) }
            return try withDatabase(writing: true, body)
        }
    }

    /// Runs `body` in a write transaction that does not wait for another writer nor add to a log
    /// past its limit; `nil` when either stops it (or the index fails): what a read does to the
    /// index, best effort.
    func withDatabaseWithoutWaiting<Result>(_ body: (SQLiteConnection) throws -> Result) -> Result? {
        try? withDatabase(writing: true, waiting: false, body)
    }

    /// The ``DiskCacheError`` for an SQLite failure on the index, naming the database, what failed,
    /// SQLite's message and the `errno` behind it.
    func error(for error: SQLiteError, writing: Bool) -> DiskCacheError {
        if error.isBusy {
            return .indexBusy(path: path, waited: Double(busyTimeoutMilliseconds) / 1000)
        }
        let call = "SQLite \(error.operation.prefix(60)): \(error.message)"
        return writing
            ? .writeFailed(path: path, call: call, errno: error.errno)
            : .readFailed(path: path, call: call, errno: error.errno)
    }

    // MARK: - Private

    private func checkOut() throws(SQLiteError) -> SQLiteConnection {
        let now = MonotonicInstant.now
        let (reusable, generation) = pool.withLock { pool -> (SQLiteConnection?, Int) in
            if now < pool.nextIdentityCheck {
                // Checked recently.
            } else {
                pool.nextIdentityCheck = now.advanced(by: Self.identityCheckInterval)
                if let open = pool.idle.last?.fileIdentity, currentIdentity() != open {
                    // Another process rebuilt the index: start over on the new file.
                    pool.generation += 1
                    pool.idle.removeAll()
                }
            }
            return (pool.idle.popLast(), pool.generation)
        }
        if let reusable { return reusable }
        do {
            return try openConnection(generation: generation, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch where error.isFull && reserve.release() {
            // A full disk (filled by anything): the first connection makes the log's index
            // (`-shm`, 32 KiB) anew, and the reserve is what gives it room, so that reads and
            // clean-ups still work. A trim makes the reserve again once there is room.
            return try openConnection(generation: generation, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
    }

    /// Opens a connection of `generation` and sets its per-connection pragmas.
    private func openConnection(
        generation: Int, busyTimeoutMilliseconds: Int32
    ) throws(SQLiteError) -> SQLiteConnection {
        let connection = try SQLiteConnection(
            path: path, immutable: !isFolderWritable, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
            generation: generation)
        connection.log = log
        // Per connection. Nothing is fsynced, as with the entry files: a killed process loses
        // nothing committed (the log is in the kernel's page cache), a power cut or system crash may
        // lose the last commits or damage the database, which is then rebuilt (see the DocC article
        // "The disk format and its crash story"). With `synchronous = NORMAL` every checkpoint
        // fsyncs, which slows small stores on ext4 (the DocC article "Measurements behind the design",
        // "Figures behind the source's choices").
        // Reads of the database file use read(2), not a memory map: a file cut short under a
        // mapping kills the process with SIGBUS, where a read gives an error and a rebuild. So
        // that a warm index is not read again on every lookup, each connection keeps up to
        // 16 MiB of its pages (SQLite's default is 2 MiB; at most 8 connections stay open). The
        // write-ahead log is checkpointed at half its limit, and cut back to it after each
        // checkpoint that empties it. Recursive triggers: a row replaced by `INSERT OR REPLACE`
        // leaves the running totals through its deletion's trigger (see `IndexSchema.runningTotals`).
        let checkpointPages = max(log.byteLimit / Self.pageByteCount / 2, 16)
        try connection.execute(
            "PRAGMA synchronous = OFF; PRAGMA recursive_triggers = ON; PRAGMA mmap_size = 0; PRAGMA cache_size = -16384; PRAGMA journal_size_limit = \(log.byteLimit); "
                + "PRAGMA wal_autocheckpoint = \(checkpointPages)")
        return connection
    }

    private func checkIn(_ connection: SQLiteConnection) {
        pool.withLock { pool in
            if connection.generation == pool.generation, pool.idle.count < 8 {
                pool.idle.append(connection)
            }
        }
    }

    /// Whether this process may write the cache folder (where SQLite keeps the `-wal` and `-shm`
    /// files); when it may not (a read-only mount), the index is opened immutable, for reads.
    private var isFolderWritable: Bool {
        access(String(path.prefix(upTo: path.lastIndex(of: "/") ?? path.endIndex)), W_OK) == 0
    }

    /// Closes the idle connections (connections in use close when given back); the next use
    /// opens new ones. What a test does before making the folder read-only.
    func closeIdleConnections() {
        pool.withLock { pool in
            pool.generation += 1
            pool.idle.removeAll()
        }
        readHold.close()
    }

    private func currentIdentity() -> SQLiteConnection.FileIdentity? {
        guard case .success(let status) = FileSystem.linkStatus(path) else { return nil }
        return SQLiteConnection.FileIdentity(device: status.device, inode: status.inode)
    }
}
