import Foundation
import HoardSystem
import Logging

extension DiskCache {
    /// Where an entry's record lives, as its index row says.
    enum Placement: Int, Sendable, Hashable {
        /// Inside the index database.
        case inline = 0
        /// In a file of its own, `<root>/<2 hex digits>/<64 hex digits>`.
        case file = 1
        /// In a segment file shared with other records, `<root>/segment-<id>`.
        case segment = 2

        /// SQL over an `entries` row that gives its placement's raw value.
        static let column = "CASE WHEN record IS NOT NULL THEN 0 WHEN segment IS NULL THEN 1 ELSE 2 END"
        /// SQL that picks the rows of entries in files of their own.
        static let isFile = "record IS NULL AND segment IS NULL"
    }

    /// An index row without its record.
    struct IndexRow: Sendable, Hashable {
        var hash: [UInt8]
        var byteCount: Int
        var lastUsed: Double
        var placement: Placement

        /// The columns, in this order, that a query selects first for ``init(_:)`` to read.
        static let rowColumns = "hash, size, used, \(Placement.column)"

        init(hash: [UInt8], byteCount: Int, lastUsed: Double, placement: Placement) {
            self.hash = hash
            self.byteCount = byteCount
            self.lastUsed = lastUsed
            self.placement = placement
        }

        /// The row at `statement`'s current step, which selected ``rowColumns`` first.
        init(_ statement: SQLiteStatement) {
            self.init(
                hash: statement.blob(0), byteCount: statement.byteCount(1), lastUsed: statement.double(2),
                placement: Placement(rawValue: statement.int(3)) ?? .file)
        }
    }

    /// The SHA-256 of `key`'s UTF-8: the index's key, and (in hex) the entry file's name.
    ///
    /// - Throws: ``DiskCacheError/hashUnavailable(keyByteCount:)``.
    static func keyHash(_ key: String) throws(DiskCacheError) -> [UInt8] {
        let bytes = Array(key.utf8)
        guard let hash = SHA256.hash(bytes) else { throw .hashUnavailable(keyByteCount: bytes.count) }
        return hash
    }

    /// The entry file of the key whose hash is `hash`.
    func location(forHash hash: [UInt8]) -> Location {
        let fileName = SHA256.hex(hash)
        let shardPath = rootPath + "/" + fileName.prefix(2)
        return Location(fileName: fileName, shardPath: shardPath, path: shardPath + "/" + fileName)
    }

    /// Runs `body` on an index connection. When the index turns out damaged it is rebuilt from the
    /// entry files (see ``rebuildIndex(after:openedAs:)``) and `body` runs once more, on the new one.
    ///
    /// - Parameter writing: Whether `body` writes: SQLite failures become
    ///   ``DiskCacheError/writeFailed(path:call:errno:)`` rather than `readFailed`.
    /// - Throws: ``DiskCacheError`` for SQLite failures, and what `body` throws.
    func withIndex<Result>(writing: Bool, _ body: (SQLiteConnection) throws -> Result) throws -> Result {
        var identity: SQLiteConnection.FileIdentity?
        do {
            return try index.withConnection(writing: writing) { connection in
                identity = connection.fileIdentity
                return try body(connection)
            }
        } catch let error as SQLiteError where error.isCorruption && index.beginRebuild() {
            defer { index.endRebuild() }
            try rebuildIndex(after: error, openedAs: identity)
            do {
                return try index.withConnection(writing: writing, body)
            } catch let error as SQLiteError {
                throw indexError(error, writing: writing)
            }
        } catch let error as SQLiteError {
            throw indexError(error, writing: writing)
        }
    }

    /// Runs `body`, a clean-up that deletes rows, on an index connection; when the disk is full
    /// (SQLite needs log space to delete rows), it runs once more after a checkpoint that gives the
    /// log's space back. The files a clean-up removes go inside its transactions, before the
    /// commit, so each attempt frees what it can.
    ///
    /// - Throws: As ``withIndex(writing:_:)``.
    func withCleanupIndex<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        do {
            return try withIndex(writing: true, body)
        } catch let error as DiskCacheError where error.errno == ENOSPC {
            _ = try? withIndex(writing: true) { try DatabaseFile(connection: $0).checkpoint(truncating: true) }
            return try withIndex(writing: true, body)
        }
    }

    /// Runs `body` on an index connection that does not wait for another writer; `nil` when one
    /// holds the lock (or the index fails): what a read does to the index, best effort.
    func withIndexWithoutWaiting<Result>(_ body: (SQLiteConnection) throws -> Result) -> Result? {
        try? withIndex(writing: true) { connection in try connection.withoutWaiting { try body(connection) } }
    }

    /// The ``DiskCacheError`` for an SQLite failure on the index, naming the database, what
    /// failed, SQLite's message and the `errno` behind it.
    func indexError(_ error: SQLiteError, writing: Bool) -> DiskCacheError {
        if error.isBusy {
            return .indexBusy(path: index.path, waited: Double(index.busyTimeoutMilliseconds) / 1000)
        }
        let call = "SQLite \(error.operation.prefix(60)): \(error.message)"
        return writing
            ? .writeFailed(path: index.path, call: call, errno: error.errno)
            : .readFailed(path: index.path, call: call, errno: error.errno)
    }

    /// Replaces a damaged index: logs it, removes the database (when no other process has already
    /// replaced it), creates an empty one and indexes the entry files. Records that lived inside
    /// the damaged database are lost: their keys read as misses.
    ///
    /// - Throws: ``DiskCacheError`` when the new index cannot be made.
    func rebuildIndex(after error: SQLiteError, openedAs identity: SQLiteConnection.FileIdentity?) throws {
        configuration.logger.error(
            "Disk cache index is damaged: rebuilding it from the entry files; entries kept inside it are lost",
            metadata: ["path": .string(index.path), "error": .string(error.description)])
        try makeIndexAnew(replacing: identity)
        try reconcileIndex()
        // The records in segment files went with the index that named them.
        try compactSegments()
    }

    /// Removes the database (the one `identity` names, or whatever is there when `nil`) and
    /// creates an empty one; the segment handles kept for the old one are let go.
    ///
    /// - Throws: ``DiskCacheError`` when the new index cannot be made.
    func makeIndexAnew(replacing identity: SQLiteConnection.FileIdentity?) throws {
        index.discardDatabase(openedAs: identity)
        segments.forgetAll()
        do {
            try index.prepare()
        } catch let error as SQLiteError {
            throw indexError(error, writing: true)
        }
    }

    /// The index row of `hash` (without its record), or `nil`.
    func indexRow(_ hash: [UInt8], on connection: SQLiteConnection) throws -> IndexRow? {
        try EntryTable(connection: connection).row(hash)
    }

    /// Deletes the row of `hash`, only if its last-use date is still `lastUsed` when given (a row
    /// replaced or used since it was read is kept), with the entry file of a row that named one
    /// (inside the caller's transaction, so that no writer is making a file visible meanwhile),
    /// and takes that file off the shared usage count; returns whether a row went.
    func deleteRow(_ hash: [UInt8], ifLastUsed lastUsed: Double? = nil, on connection: SQLiteConnection) throws -> Bool {
        // The row is read first, not with `DELETE ... RETURNING`: SQLite 3.40 gives a wrong
        // `record IS NOT NULL` in a RETURNING clause.
        guard let row = try indexRow(hash, on: connection), lastUsed == nil || row.lastUsed == lastUsed else {
            return false
        }
        try EntryTable(connection: connection).delete(hash)
        if row.placement == .file {
            try files.remove(SHA256.hex(hash))
            try UsageTable(connection: connection).addFileBytes(-row.byteCount)
        }
        // A record in a segment leaves dead bytes there until a compaction; one inside the index,
        // a free page until a vacuum.
        return true
    }

    /// The bytes records take on disk, as every process sharing the folder sees them (see
    /// ``UsageTable``).
    struct Usage: Sendable, Hashable {
        /// Entry files and segment files (dead records included); the index database is
        /// measured by its file's size (see ``TrimState/counted(_:)``).
        var bytes: Int
    }

    /// Logs a record found damaged inside the index (its row is removed).
    func logDamagedRecord(hash: [UInt8], reason: String) {
        configuration.logger.warning(
            "Removed damaged disk cache entry",
            metadata: ["path": .string(index.path), "entry": .string(SHA256.hex(hash)), "reason": .string(reason)])
    }
}
