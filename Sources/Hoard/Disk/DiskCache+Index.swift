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

    /// The ``DiskCacheError`` for an SQLite failure on the index, naming the database, what
    /// failed, SQLite's message and the `errno` behind it.
    func indexError(_ error: SQLiteError, writing: Bool) -> DiskCacheError {
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
        index.discardDatabase(openedAs: identity)
        segments.forgetAll()
        do {
            try index.prepare()
        } catch let error as SQLiteError {
            throw indexError(error, writing: true)
        }
        try reconcileIndex()
        // The records in segment files went with the index that named them.
        try compactSegments()
    }

    /// The query of ``indexRow(_:on:)``, made once (statements are cached by their text).
    private static let rowQuery = "SELECT size, used, \(Placement.column) FROM entries WHERE hash = ?1"

    /// The index row of `hash` (without its record), or `nil`.
    func indexRow(_ hash: [UInt8], on connection: SQLiteConnection) throws -> IndexRow? {
        let select = try connection.statement(Self.rowQuery)
        defer { select.reset() }
        select.bind(1, hash)
        guard try select.step() else { return nil }
        return IndexRow(
            hash: hash, byteCount: select.byteCount(0), lastUsed: select.double(1),
            placement: Placement(rawValue: select.int(2)) ?? .file)
    }

    /// Inserts or replaces the row of `header`'s key; `record` is the whole record for an inline
    /// entry, `segment` where it is for one in a segment, and both `nil` for one in its own file.
    func upsertRow(
        hash: [UInt8], header: Entry.Header, used: Date, record: UnsafeRawBufferPointer?,
        segment: SegmentLocation? = nil, on connection: SQLiteConnection
    ) throws {
        let upsert = try connection.statement(
            "INSERT OR REPLACE INTO entries (hash, key, size, created, expires, used, record, segment, offset) "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
        defer { upsert.reset() }
        upsert.bind(1, hash)
        upsert.bind(2, header.key)
        upsert.bind(3, header.fileByteCount)
        upsert.bind(4, header.creationDate.timeIntervalSinceReferenceDate)
        upsert.bind(5, header.expirationDate?.timeIntervalSinceReferenceDate)
        upsert.bind(6, used.timeIntervalSinceReferenceDate)
        if let record { upsert.bindBorrowed(7, record) } else { upsert.bindNull(7) }
        if let segment {
            upsert.bind(8, segment.id)
            upsert.bind(9, segment.offset)
        } else {
            upsert.bindNull(8)
            upsert.bindNull(9)
        }
        while try upsert.step() {}
    }

    /// Deletes the row of `hash`, only if its last-use date is still `lastUsed` when given (a row
    /// replaced or used since it was read is kept); returns whether a row went.
    func deleteRow(_ hash: [UInt8], ifLastUsed lastUsed: Double? = nil, on connection: SQLiteConnection) throws -> Bool {
        let delete = try connection.statement(
            lastUsed == nil ? "DELETE FROM entries WHERE hash = ?1" : "DELETE FROM entries WHERE hash = ?1 AND used = ?2")
        defer { delete.reset() }
        delete.bind(1, hash)
        if let lastUsed { delete.bind(2, lastUsed) }
        while try delete.step() {}
        return connection.changes > 0
    }

    /// Removes the entry file of `hash` if there is a regular file there; returns its length.
    ///
    /// - Throws: ``DiskCacheError/removeFailed(path:call:errno:)``.
    @discardableResult
    func removeEntryFile(ofHash hash: [UInt8]) throws(DiskCacheError) -> Int {
        let path = location(forHash: hash).path
        guard case .success(let status) = FileSystem.linkStatus(path), status.kind == .regular else { return 0 }
        if case .failure(let error) = FileSystem.removeFile(path) {
            throw .removeFailed(path: path, call: error.call, errno: error.errno)
        }
        return status.byteCount
    }

    /// Logs a record found damaged inside the index (its row is removed).
    func logDamagedRecord(hash: [UInt8], reason: String) {
        configuration.logger.warning(
            "Removed damaged disk cache entry",
            metadata: ["path": .string(index.path), "entry": .string(SHA256.hex(hash)), "reason": .string(reason)])
    }
}
