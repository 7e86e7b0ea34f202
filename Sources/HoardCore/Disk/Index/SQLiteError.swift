import CHoardSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed SQLite call: its extended result code, SQLite's message, the system error behind an
/// I/O failure, and what was being done.
struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_CORRUPT`, ...).
    var code: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    var message: String
    /// The `errno` of the system call that failed, 0 when none did.
    var systemErrno: Int32
    /// The statement or call that failed.
    var operation: String

    /// The primary result code (`SQLITE_IOERR` for `SQLITE_IOERR_WRITE`).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether the database file is damaged or is not a database.
    /// A database whose tables are gone (dropped, or a new empty file where the index was) or
    /// whose file was cut short counts as damaged too.
    var isCorruption: Bool {
        primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB || code == Self.shortReadCode
            || (primaryCode == SQLITE_ERROR && (message.hasPrefix("no such table") || message.hasPrefix("no such column")))
    }

    /// `SQLITE_IOERR_SHORT_READ`, a macro Swift does not import: a read past the end of a file
    /// cut short.
    static let shortReadCode: Int32 = SQLITE_IOERR | (2 << 8)

    /// Whether another connection held the lock for longer than the busy timeout.
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// Whether the disk (or the database's size limit) is full.
    var isFull: Bool { primaryCode == SQLITE_FULL || systemErrno == ENOSPC }

    /// The `errno` this failure stands for: the system's when a system call failed, else the
    /// closest one (`ENOSPC` for a full disk, `EROFS` for a read-only database), else `EIO`.
    var errno: Int32 {
        if systemErrno != 0 { return systemErrno }
        switch primaryCode {
        case SQLITE_FULL: return ENOSPC
        case SQLITE_READONLY: return EROFS
        case SQLITE_BUSY, SQLITE_LOCKED: return EBUSY
        case SQLITE_NOMEM: return ENOMEM
        case SQLITE_PERM, SQLITE_AUTH, SQLITE_CANTOPEN: return EACCES
        default: return EIO
        }
    }

    var description: String {
        "\(operation) failed: \(message) (SQLite result \(code)\(systemErrno == 0 ? "" : ", errno \(systemErrno)"))"
    }

    /// What a write that never waits fails with when the index's log at `path` is past its limit
    /// and could not be cut back at once: busy, as when another writer holds the lock.
    static func logPastLimit(path: String) -> SQLiteError {
        SQLiteError(
            code: SQLITE_BUSY, message: "the log is past its limit and readers keep it from starting over",
            systemErrno: 0, operation: "write without waiting to \(path)")
    }
}
