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
    /// Reads each file's header (not its payload): expired entries and files whose header does not
    /// verify are left out, and removed. An entry whose payload turns out damaged when read is a miss.
    ///
    /// ```swift
    /// for key in try cache.keys() where key.hasPrefix("thumb:") { try cache.remove(forKey: key) }
    /// ```
    ///
    /// - Returns: The keys, each once.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be
    ///   listed; ``DiskCacheError/readFailed(path:call:errno:)`` when an entry cannot be read.
    /// - Complexity: O(m) file opens and header reads for m entry files.
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
    /// - Complexity: O(m) file opens and header reads for m entry files.
    @discardableResult
    public func removeExpired() throws -> Int {
        let now = configuration.now()
        var removed = 0
        for file in try scanEntryFiles() {
            let lookup = try readEntryFile(
                at: file.path, fileName: file.fileName, expectedKey: nil, options: [], now: now)
            if case .expired = lookup { removed += 1 }
        }
        return removed
    }

    /// Removes every entry that `shouldRemove` picks by its key and the first bytes of its value.
    ///
    /// Reads each entry file's header and the payload bytes that come with it (up to 16 KiB,
    /// unverified: enough to recognise a type tag), never whole payloads.
    ///
    /// - Parameter shouldRemove: Given each live entry's key and payload prefix.
    /// - Returns: The keys of the entries removed.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` or
    ///   ``DiskCacheError/readFailed(path:call:errno:)``.
    /// - Complexity: O(m) file opens and header reads for m entry files.
    @discardableResult
    func removeEntryFiles(where shouldRemove: (_ key: String, _ payloadPrefix: ArraySlice<UInt8>) -> Bool) throws -> [String] {
        let now = configuration.now()
        var removed: [String] = []
        for file in try scanEntryFiles() {
            guard
                let entry = try readEntryFile(
                    at: file.path, fileName: file.fileName, expectedKey: nil, options: [.payloadPrefix], now: now
                ).file,
                shouldRemove(entry.header.key, entry.payloadPrefix ?? [])
            else { continue }
            if removeScannedFile(ScannedFile(path: file.path, fileName: file.fileName, status: entry.status)) {
                noteRemoval(byteCount: entry.status.byteCount)
                removed.append(entry.header.key)
            }
        }
        return removed
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
    /// - Complexity: O(m) file opens and header reads for m entry files.
    @discardableResult
    public func removeOlderThan(_ date: Date) throws -> Int {
        let now = configuration.now()
        var removed = 0
        for file in try scanEntryFiles() {
            guard
                let entry = try readEntryFile(
                    at: file.path, fileName: file.fileName, expectedKey: nil, options: [], now: now
                ).file,
                entry.header.creationDate < date
            else { continue }
            let scanned = ScannedFile(path: file.path, fileName: file.fileName, status: entry.status)
            if removeScannedFile(scanned) {
                noteRemoval(byteCount: entry.status.byteCount)
                removed += 1
            }
        }
        return removed
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
        let now = configuration.now()
        for file in try scanEntryFiles() where file.status.kind == .regular {
            if case .failure(let error) = FileSystem.removeFile(file.path) {
                throw DiskCacheError.removeFailed(path: file.path, call: error.call, errno: error.errno)
            }
        }
        try removeAbandonedTemporaryFiles(now: now)
        state.withLock { state in
            state.approximateByteCount = 0
            state.lastScanDate = now
            state.isByteCountKnown = true
        }
    }

    /// The bytes the entry files take now, headers included, by a scan of the folder.
    ///
    /// Counts entries written by every process, expired or not, until they are removed.
    ///
    /// ```swift
    /// let megabytes = try cache.totalSize / 1_048_576
    /// ```
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be listed.
    /// - Complexity: O(m): one `lstat` per entry file.
    public var totalSize: Int {
        get throws {
            let total = try scanEntryFiles().reduce(0) { $0 + ($1.status.kind == .regular ? $1.status.byteCount : 0) }
            state.withLock { state in
                state.approximateByteCount = total
                state.isByteCountKnown = true
            }
            return total
        }
    }

}
