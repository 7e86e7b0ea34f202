import CHoardSQLite

/// A prepared statement of one ``SQLiteConnection``, reused for every call: bind, step, read
/// columns, reset.
///
/// Columns and parameters are numbered as SQLite numbers them (parameters from 1, columns from 0).
/// A blob column's bytes belong to SQLite and are valid only until the next `step` or `reset`.
final class SQLiteStatement {
    let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String

    init(sql: String, connection: OpaquePointer) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteConnection.error(code, connection, operation: "prepare \(sql)")
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: - Parameters

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds `text` (copied by SQLite).
    func bind(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(handle, index, utf8.baseAddress, Int32(utf8.count), Self.transient)
        }
    }

    /// Binds `bytes` without copying: they must stay valid until the statement is stepped and reset.
    func bindBorrowed(_ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            sqlite3_bind_zeroblob(handle, index, 0)  // a null pointer would bind NULL
            return
        }
        sqlite3_bind_blob(handle, index, start, Int32(bytes.count), nil)
    }

    /// Binds `bytes` (copied by SQLite).
    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else {
                _ = sqlite3_bind_zeroblob(handle, index, 0)
                return
            }
            _ = sqlite3_bind_blob(handle, index, start, Int32(buffer.count), Self.transient)
        }
    }

    func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    // MARK: - Stepping

    /// Runs the statement to its next row: `true` when there is one, `false` when it is done.
    ///
    /// - Throws: ``SQLiteError`` for anything but a row or the end.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteConnection.error(code, connection, operation: sql)
        }
    }

    /// Runs a statement that returns no rows to its end, then resets it.
    func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    /// Makes the statement ready to run again and drops its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    /// The largest value ``byteCount(_:)`` gives: 256 TiB, past any record or segment, and small
    /// enough that sums of many such values do not overflow.
    static let maximumByteCount = 1 << 48

    /// A size, length or offset from the index, held to `0...maximumByteCount`: a damaged row's
    /// value then cannot overflow the arithmetic done with it (the record it names fails its checks).
    func byteCount(_ column: Int32) -> Int {
        min(max(int(column), 0), Self.maximumByteCount)
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    func optionalDouble(_ column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column's bytes, owned by SQLite: valid until the next step or reset.
    func borrowedBlob(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let start = sqlite3_column_blob(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: count)
    }

    func blob(_ column: Int32) -> [UInt8] {
        Array(borrowedBlob(column))
    }

    func text(_ column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let start = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    // MARK: - Private

    /// `SQLITE_TRANSIENT`, a macro Swift does not import: SQLite copies the bytes before returning.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
