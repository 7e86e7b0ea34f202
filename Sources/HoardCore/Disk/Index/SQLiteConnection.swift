import CHoardSQLite
import CHoardSupport
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection to an SQLite database, with its prepared statements kept for reuse.
///
/// Opened in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`): a connection may move between
/// threads but is used by one at a time, which ``DiskIndex``'s pool guarantees by handing each
/// connection to one caller until it is given back.
final class SQLiteConnection: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time (see above); never shared while in use.

    let handle: OpaquePointer
    /// The database file's identity when the connection was opened, to notice a rebuilt index.
    let fileIdentity: FileIdentity?
    /// The ``DiskIndex`` generation this connection belongs to.
    let generation: Int
    /// How long this connection waits for another's lock, in milliseconds.
    let busyTimeoutMilliseconds: Int32
    /// What the busy handler reads: the wait allowed now (0 inside ``withoutWaiting(_:)``) and
    /// when the current wait began. Retrying every millisecond, not SQLite's up to 100 ms, is what
    /// lets a maintenance batch take the lock between the transactions of a writer in a loop.
    private let busyWait: UnsafeMutablePointer<hoard_busy_wait_state>
    /// The prepared statements, by their ``SQL/slot``.
    private var statements: [SQLiteStatement?] = []
    /// The write-ahead log, whose limit a write transaction checks once it holds the write lock;
    /// `nil` checks nothing.
    var log: IndexLog?

    /// A file's device and inode.
    struct FileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Opens (creating when missing) the database at `path`, never through a symbolic link, and
    /// sets the busy timeout.
    ///
    /// - Parameter immutable: Open read-only as a file nothing changes (SQLite's `immutable=1`):
    ///   for a folder this process cannot write, where SQLite could not make the files WAL mode
    ///   reads need. Commits still in another process's `-wal` file are not seen.
    /// - Throws: ``SQLiteError`` when SQLite cannot open it.
    init(path: String, immutable: Bool = false, busyTimeoutMilliseconds: Int32, generation: Int) throws(SQLiteError) {
        var connection: OpaquePointer?
        let flags =
            (immutable ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let name = immutable ? "file:" + Self.uriEscaped(path) + "?immutable=1" : path
        let code = sqlite3_open_v2(name, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = connection.map { Self.error(code, $0, operation: "sqlite3_open_v2 \(path)") }
                ?? SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), systemErrno: 0,
                               operation: "sqlite3_open_v2 \(path)")
            sqlite3_close_v2(connection)
            throw error
        }
        sqlite3_extended_result_codes(connection, 1)
        busyWait = .allocate(capacity: 1)
        busyWait.initialize(to: hoard_busy_wait_state(timeout_milliseconds: busyTimeoutMilliseconds, started: 0))
        sqlite3_busy_handler(connection, hoard_busy_wait, busyWait)
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        handle = connection
        self.generation = generation
        if case .success(let status) = FileSystem.linkStatus(path) {
            fileIdentity = FileIdentity(device: status.device, inode: status.inode)
        } else {
            fileIdentity = nil
        }
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        sqlite3_close_v2(handle)
        busyWait.deallocate()
    }

    /// Runs one or more statements that return nothing (pragmas, schema, `BEGIN`).
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw Self.error(code, handle, operation: sql) }
    }

    /// The prepared statement for `sql`, prepared on first use and kept for reuse (each caller
    /// resets it when done).
    func statement(_ sql: SQL) throws(SQLiteError) -> SQLiteStatement {
        if sql.slot < statements.count, let statement = statements[sql.slot] { return statement }
        let statement = try SQLiteStatement(sql: sql.text, connection: handle)
        if statements.count <= sql.slot {
            statements.append(contentsOf: repeatElement(nil, count: sql.slot + 1 - statements.count))
        }
        statements[sql.slot] = statement
        return statement
    }

    /// A statement prepared for one use and finalized when released: for SQL that is not one of
    /// the cache's declared statements (a test's, a diagnostic's).
    func uncachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(sql: sql, connection: handle)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so that it waits for the write lock
    /// up front instead of failing to upgrade a read), committed when it returns and rolled back
    /// when it throws. The log past its limit is cut back first; a connection that does not wait
    /// fails as ``SQLiteError/logPastLimit(path:)`` when one try does not do it.
    func writeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try beginWriting()
        do {
            let result = try body()
            try statement(Self.commitSQL).run()
            return result
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
    private static let beginImmediateSQL = SQL("BEGIN IMMEDIATE")

    /// `BEGIN IMMEDIATE`, then, holding the write lock, a look at the ``log``. A writer cuts the
    /// log back before it asks for the lock, but another writer may commit in between: a log found
    /// past its limit here is cut back first (the lock given back, the log checkpointed, the
    /// transaction begun again), so that the log passes its limit by one transaction, not by one
    /// for every writer waiting. That lasts as long as this connection waits for a lock; then the
    /// transaction goes on (readers kept the log from starting over, see ``IndexLog``). A
    /// connection that does not wait (what a read writes) tries once, then fails as
    /// ``SQLiteError/logPastLimit(path:)`` rather than add to the log.
    private func beginWriting() throws {
        let isWaiting = busyWait.pointee.timeout_milliseconds > 0
        let deadline = MonotonicInstant.now.advanced(by: .milliseconds(Int(busyWait.pointee.timeout_milliseconds)))
        var isLate = false
        while true {
            try statement(Self.beginImmediateSQL).run()
            guard let log, !log.isWithinLimit else { return }
            if isLate && isWaiting { return }
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            guard !isLate else { throw SQLiteError.logPastLimit(path: log.path) }
            isLate = !log.cutBack(on: self, until: deadline) || MonotonicInstant.now >= deadline
        }
    }

    /// Runs `body` in a read transaction, so that the statements it runs read one snapshot.
    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try statement(Self.beginSQL).run()
        defer { _ = sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        return try body()
    }
    private static let beginSQL = SQL("BEGIN")
    private static let commitSQL = SQL("COMMIT")

    /// Runs `body` without waiting for any other connection's lock: what must not wait for a
    /// writer (a read's recency mark, the clean-up a read does) fails at once with `SQLITE_BUSY`.
    func withoutWaiting<Result>(_ body: () throws -> Result) rethrows -> Result {
        busyWait.pointee.timeout_milliseconds = 0
        defer { busyWait.pointee.timeout_milliseconds = busyTimeoutMilliseconds }
        return try body()
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }

    /// `path` with the characters a `file:` URI gives meaning to (`%`, `?`, `#`) escaped.
    static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// The error for result `code` of a call on `connection`.
    static func error(_ code: Int32, _ connection: OpaquePointer, operation: String) -> SQLiteError {
        SQLiteError(
            code: code, message: String(cString: sqlite3_errmsg(connection)),
            systemErrno: sqlite3_system_errno(connection), operation: operation)
    }
}
