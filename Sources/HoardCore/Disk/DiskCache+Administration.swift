import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCache {
    /// The keys of the entries in the cache, in no particular order.
    ///
    /// Reads the index, not the entries: expired entries are left out. An entry whose record turns
    /// out damaged when read is a miss.
    ///
    /// ```swift
    /// for key in try cache.keys() where key.hasPrefix("thumb:") { try cache.remove(forKey: key) }
    /// ```
    ///
    /// - Returns: The keys, each once.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/readFailed(path:call:errno:)`` when an entry cannot be read.
    /// - Complexity: O(m) for m entries, one index scan.
    public func keys() throws -> [String] {
        try entryInfos().map(\.key)
    }

    /// Removes every entry whose expiration date has come.
    ///
    /// Expired entries are never returned whether or not this runs; it gives their space back.
    ///
    /// ```swift
    /// let removed = try cache.removeExpired()
    /// ```
    ///
    /// - Returns: How many entries were removed (damaged files removed on the way are not counted).
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` or
    ///   ``DiskCacheError/readFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, one index scan, plus one `unlink` per removed entry file.
    @discardableResult
    public func removeExpired() throws -> Int {
        try maintenance.deleteRows(.expired, at: configuration.now()).count
    }

    /// Removes every entry that `shouldRemove` picks by its key and the first bytes of its value.
    ///
    /// Reads each entry's key and the first bytes of its payload (up to 16 KiB, unverified:
    /// enough to recognise a type tag), from the index or the entry's file, never whole payloads.
    ///
    /// - Parameter shouldRemove: Given each live entry's key and payload prefix.
    /// - Returns: The keys of the entries removed.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` or
    ///   ``DiskCacheError/readFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, plus a header read per entry file.
    @discardableResult
    func removeEntries(picking shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool) throws -> [String] {
        try maintenance.removeEntries(where: shouldRemove)
    }

    /// Removes every entry created before `date` (by the header's creation date, not by last use).
    ///
    /// ```swift
    /// try cache.removeOlderThan(Date().addingTimeInterval(-7 * 86_400))   // older than a week
    /// ```
    ///
    /// - Parameter date: Entries created strictly before this moment are removed.
    /// - Returns: How many entries were removed.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)``,
    ///   ``DiskCacheError/readFailed(path:call:errno:)`` or ``DiskCacheError/removeFailed(path:call:errno:)``.
    /// - Complexity: O(m) for m entries, one index scan, plus one `unlink` per removed entry file.
    @discardableResult
    public func removeOlderThan(_ date: Date) throws -> Int {
        try maintenance.deleteRows(.createdBefore, at: date).count
    }

    /// Removes every entry, and every temporary file no live writer holds.
    ///
    /// Writes running at the same time in other processes may land after it; they are kept.
    ///
    /// ```swift
    /// try cache.removeAll()
    /// ```
    ///
    /// Only entry files are removed: a folder, a symbolic link or any other file found where an
    /// entry could be is left alone.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/removeFailed(path:call:errno:)`` when a file cannot be removed;
    ///   ``DiskCacheError/foreignItem(path:reason:)`` when `tmp` is not the cache's own folder.
    /// - Complexity: O(m) for m entry files.
    public func removeAll() throws {
        try maintenance.removeAll()
    }

    /// Brings the index in step with the folder, then trims (see ``performTrim(now:)``): gives
    /// back the space removed and replaced records left, and removes least recently used entries
    /// while the bytes on disk are over ``Configuration/sizeLimit``; removes temporary files
    /// abandoned by writers that died.
    ///
    /// Writes trim by themselves (by the index alone, without listing the folder) when the bytes
    /// on disk pass the limit or the last trim is older than ``Configuration/rescanInterval``;
    /// call this after a bulk import, or at start-up to clean up after a crash: it also indexes
    /// entry files the index does not know and drops rows whose files are gone (see
    /// ``Reconciler/reconcile()``). Several processes may trim the same folder at once.
    ///
    /// ```swift
    /// try cache.trim()
    /// ```
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot
    ///   be listed; ``DiskCacheError/writeFailed(path:call:errno:)`` when the index cannot be written.
    /// - Complexity: O(m) in the entry files (one `lstat` each) and O(r log r) in the index's rows.
    public func trim() throws {
        try maintenance.trim()
    }

    /// Waits until the trims that writes scheduled so far have run (they run on a queue of the
    /// cache's own, after the writer removed one batch itself): for a caller that measures the
    /// folder right after its writes, or a test's child process about to exit (a trim cut short
    /// by the exit leaves its record buffers to LeakSanitizer's exit check, which reads them as
    /// leaks).
    package func waitForScheduledTrims() {
        maintenance.waitForScheduledTrims()
    }

    /// What counts against the limit now, by the shared count and the index's size: what
    /// statistics show. 0 when the index cannot be read.
    ///
    /// - Complexity: O(1): one indexed read.
    func estimatedByteCount() -> Int {
        maintenance.estimatedByteCount()
    }

    /// The bytes the entries' records take now (headers and keys included), by the index.
    ///
    /// Counts entries written by every process, expired or not, until they are removed.
    ///
    /// ```swift
    /// let megabytes = try cache.totalSize / 1_048_576
    /// ```
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(1): the index's running totals.
    public var totalSize: Int {
        get throws { try maintenance.indexedByteCount() }
    }

    /// The bytes the cache takes on disk now: its segment files (removed and replaced records
    /// included, until a trim gives their space back), entry files, and the index with its log.
    /// What ``Configuration/sizeLimit`` bounds.
    ///
    /// ```swift
    /// print("cache uses \(try cache.bytesOnDisk / 1_048_576) MiB")
    /// ```
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(1): the index's running totals and an `lstat` of each index file.
    public var bytesOnDisk: Int {
        get throws {
            let usage = try maintenance.currentUsage()
            return usage.fileBytes + usage.segmentFileBytes + maintenance.indexFileByteCount()
        }
    }

    /// The entries in the cache, in no particular order, with their sizes and dates.
    ///
    /// Reads the index, not the entries, and writes nothing: expired entries are left out (their
    /// space comes back with ``removeExpired()`` or a trim); an entry whose record turns out
    /// damaged when read is a miss.
    ///
    /// ```swift
    /// let bytes = try cache.entryInfos().reduce(0) { $0 + $1.fileByteCount }
    /// ```
    ///
    /// - Returns: One element per live entry.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(m) for m entries, one scan of the index.
    public func entryInfos() throws -> [EntryInfo] {
        marks.flush()
        let now = configuration.now()
        return try index.withDatabase(writing: false) { try EntryTable(connection: $0).infos(liveAt: now) }
    }

    /// How many entries the cache holds, expired ones included until they are removed, by the index.
    ///
    /// ```swift
    /// print("\(try cache.entryCount) entries, \(try cache.totalSize) bytes")
    /// ```
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the index cannot be read.
    /// - Complexity: O(1): the index's running totals.
    public var entryCount: Int {
        get throws { try maintenance.currentUsage().entryCount }
    }
}
