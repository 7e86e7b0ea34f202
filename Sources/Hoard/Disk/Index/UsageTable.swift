/// The `usage` table through one connection: the one row counting the bytes records take, which
/// every write changes in its own transaction (see ``DiskCache/Usage``).
///
/// Invariant: the row changes only inside the write transaction that changes what it counts, so
/// every process reads a count in step with the tables; a trim counts it again from them.
struct UsageTable {
    let connection: SQLiteConnection

    /// Adds `delta` to the count of the bytes records take, of which `inline` inside the index.
    ///
    /// - Returns: The count now; zero when the row is missing, until the next trim sets it.
    @discardableResult
    func add(_ delta: Int, inline: Int = 0) throws -> DiskCache.Usage {
        let update = try connection.statement(
            "UPDATE usage SET bytes = max(bytes + ?1, 0), inline = max(inline + ?2, 0) RETURNING bytes, inline")
        defer { update.reset() }
        update.bind(1, delta)
        update.bind(2, inline)
        guard try update.step() else { return DiskCache.Usage(bytes: 0, inlineBytes: 0) }
        let usage = DiskCache.Usage(bytes: update.byteCount(0), inlineBytes: update.byteCount(1))
        while try update.step() {}
        return usage
    }

    /// The count as stored.
    func stored() throws -> DiskCache.Usage {
        let select = try connection.statement("SELECT bytes, inline FROM usage WHERE id = 1")
        defer { select.reset() }
        guard try select.step() else { return DiskCache.Usage(bytes: 0, inlineBytes: 0) }
        return DiskCache.Usage(bytes: select.byteCount(0), inlineBytes: select.byteCount(1))
    }

    /// Sets the count (a trim's count from the tables and the files).
    func set(_ usage: DiskCache.Usage) throws {
        let replace = try connection.statement("INSERT OR REPLACE INTO usage (id, bytes, inline) VALUES (1, ?1, ?2)")
        defer { replace.reset() }
        replace.bind(1, usage.bytes)
        replace.bind(2, usage.inlineBytes)
        try replace.run()
    }
}
