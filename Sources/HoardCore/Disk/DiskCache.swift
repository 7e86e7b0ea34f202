import Foundation
import HoardSystem
import Logging

/// A cache of byte blobs in one folder, safe to share between threads and between processes.
///
/// Any string is a key (keys never become paths). Every entry is a checksummed record, indexed in
/// a SQLite database in the folder; a record that does not verify is a miss, is removed and
/// logged: wrong bytes are never returned. Readers in any process see the old entry, the new one
/// or a miss, and never wait for a writer; a writer waits for another at most
/// ``Configuration/writeLockTimeout``. The folder stays within ``Configuration/sizeLimit`` plus
/// ``Configuration/slackByteCount``, trimmed by recency. The cache deletes or overwrites only
/// what it made, never through a symbolic link.
///
/// This type is a façade over parts that each own their state and keep one invariant; the
/// format, the parts, the size bound and what a crash at any moment leaves are in <doc:DiskFormat>.
///
/// ```swift
/// let cache = try DiskCache(directory: URL(filePath: "/var/cache/app/blobs"))
/// try cache.store(Data("hello".utf8), forKey: "greeting", expiry: .seconds(3600))
/// let bytes = try cache.data(forKey: "greeting")   // Data("hello".utf8)
/// ```
public final class DiskCache: Sendable {
    /// The longest key, in bytes of UTF-8, that ``store(_:forKey:expiry:)`` accepts (1 MiB).
    public static let maximumKeyByteCount = 1 << 20

    /// The folder that holds the entries.
    public let directory: URL
    /// The limits, clock and logger this cache was created with.
    public let configuration: Configuration

    /// The folder's marker, tag and `tmp` folder.
    let folder: CacheFolder
    /// The index of entries, holding every SQL statement and the small records.
    let index: DiskIndex
    /// The segment files, holding the records from 2 KiB to the inline limit.
    let segments: SegmentStore
    /// The files of records too large for a segment.
    let files: FileStore
    /// Keeps the index in step with the folder and rebuilds it after damage.
    let reconciler: Reconciler
    /// Trims, compacts and removes.
    let maintenance: Maintenance
    /// Reads records wherever they live.
    let reader: RecordReader
    /// Writes records where they belong.
    let writer: RecordWriter
    /// The recency marks of this process's reads, written in batches.
    let marks: RecencyMarks

    /// The file that marks a folder as a Hoard cache, holding the format version: `.hoard-cache`.
    ///
    /// A folder becomes a cache only when it is new, empty, or already marked: a folder that holds
    /// anything else is refused with ``DiskCacheError/notACache(path:)``, so that pointing a cache
    /// at `~` or `/` cannot delete what is there.
    public static let markerFileName = CacheFolder.markerFileName

    /// Opens the cache in `directory`, creating the folder (and its parents, mode 0700) when missing.
    ///
    /// Entries already in the folder, written by this or another process, are used as they are. A
    /// folder becomes a cache only when it is new, empty or already a cache: a new cache is marked
    /// with a ``markerFileName`` file holding its format version and a standard `CACHEDIR.TAG` (so
    /// that backup tools skip it), and a folder that holds anything else is refused, so that a
    /// mistyped path (`~`, `/`) cannot lose what is there. A folder other users may write is
    /// accepted with a warning in the log: anyone who can write it can plant entries.
    ///
    /// ```swift
    /// let cache = try DiskCache(directory: caches.appending(path: "thumbnails"),
    ///                           configuration: .init(sizeLimit: 64 * 1024 * 1024))
    /// ```
    ///
    /// - Parameters:
    ///   - directory: A file URL of the cache's own folder; nothing else should live in it.
    ///   - configuration: Size limit, recency granularity, logger and clock.
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot
    ///   be created; ``DiskCacheError/notACache(path:)`` when it holds files and no marker;
    ///   ``DiskCacheError/unsupportedFormat(path:marker:)`` when another version made it;
    ///   ``DiskCacheError/notAFileURL(_:)``; ``DiskCacheError/invalidValue(_:)`` for a
    ///   configuration value it cannot use (a size limit of 0, a ratio outside (0, 1], an interval
    ///   that is not finite or is negative, an inline limit outside 0 through 4 MiB);
    ///   ``DiskCacheError/foreignItem(path:reason:)`` when `index.sqlite` is not a regular file;
    ///   ``DiskCacheError/writeFailed(path:call:errno:)`` when a new index cannot be created.
    /// - Complexity: O(1) for a cache of the current format; O(n) in the entries of a cache of the
    ///   earlier format (each entry file's header is read once, to index it), or of one whose index
    ///   was lost or damaged.
    public init(directory: URL, configuration: Configuration = Configuration()) throws {
        guard directory.isFileURL else { throw DiskCacheError.notAFileURL(directory.absoluteString) }
        do {
            try configuration.validate()
        } catch {
            throw DiskCacheError.invalidValue(error)
        }
        self.directory = directory
        self.configuration = configuration
        let path = directory.standardizedFileURL.path(percentEncoded: false)
        let (state, rootPath) = try CacheFolder.prepare(
            path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path, logger: configuration.logger)
        let parts = try Parts(rootPath: rootPath, configuration: configuration)
        (folder, index, segments, files) = (parts.folder, parts.index, parts.segments, parts.files)
        (reconciler, maintenance, reader, writer) = (parts.reconciler, parts.maintenance, parts.reader, parts.writer)
        marks = parts.marks
        try reconciler.openIndex(indexingEntryFiles: state == .unindexed)
    }

    /// Stores `data` under `key`, replacing any previous value.
    ///
    /// The entry appears atomically: readers see the previous value or this one. An expiry that
    /// has already passed stores nothing and removes the previous value. After the write the
    /// running size total is updated; over the limit, the store removes least recently used
    /// entries itself (at most 1,024, in short batches) and leaves the rest of the trim to the
    /// cache's maintenance queue.
    ///
    /// ```swift
    /// try cache.store(jpegBytes, forKey: "https://example.com/a.jpg", expiry: .seconds(86_400))
    /// ```
    ///
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: Any string of at most ``maximumKeyByteCount`` UTF-8 bytes.
    ///   - expiry: When the entry stops being returned; default ``Expiry/never``.
    /// - Throws: ``DiskCacheError/writeFailed(path:call:errno:)`` naming the file (the entry's, or
    ///   the index), the call and the errno (`ENOSPC` for a full disk, `EROFS`/`EACCES` for an
    ///   unwritable folder; existing entries stay readable);
    ///   ``DiskCacheError/keyTooLong(byteCount:maximum:)``; ``DiskCacheError/invalidValue(_:)``
    ///   for an expiry that is not finite.
    /// - Complexity: O(n) in the size of `data` (one checksum pass and one write) plus O(log m) for
    ///   the index row among m entries; over the limit, at most 1,024 removals more.
    public func store(_ data: Data, forKey key: String, expiry: Expiry = .never) throws {
        do {
            try expiry.validate("DiskCache.store(_:forKey:expiry:) expiry")
        } catch {
            throw DiskCacheError.invalidValue(error)
        }
        let now = configuration.now()
        try store(data, forKey: key, creationDate: now, expirationDate: expiry.expirationDate(from: now))
    }

    /// Stores `data` under `key` with the given dates (a copy from another tier keeps its own);
    /// an expiration date that has passed removes the key's value instead.
    ///
    /// - Throws: As ``store(_:forKey:expiry:)``.
    func store(_ data: Data, forKey key: String, creationDate: Date, expirationDate: Date?) throws {
        let keyByteCount = key.utf8.count
        guard keyByteCount <= Self.maximumKeyByteCount else {
            throw DiskCacheError.keyTooLong(byteCount: keyByteCount, maximum: Self.maximumKeyByteCount)
        }
        let now = configuration.now()
        if let date = expirationDate, date <= now {
            try remove(forKey: key)
            return
        }
        let header = CacheRecord.Header(
            key: key, creationDate: creationDate, expirationDate: expirationDate,
            payloadByteCount: data.count, payloadChecksum: 0)  // computed while writing
        let usage = try writer.store(header: header, payload: data, hash: try EntryFiles.keyHash(key), now: now)
        maintenance.noteWrite(usage: usage)
    }

    /// The bytes stored under `key`, or `nil` when there are none, they expired, or the record is
    /// damaged (then it is removed and the event logged).
    ///
    /// ```swift
    /// if let bytes = try cache.data(forKey: "greeting") { use(bytes) }
    /// ```
    ///
    /// - Parameter key: The key the bytes were stored under.
    /// - Returns: The verified bytes, or `nil` for a miss.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the file exists but cannot be
    ///   read (`EACCES`, `EIO`).
    /// - Complexity: O(n) in the size of the entry (one read and one checksum pass).
    public func data(forKey key: String) throws -> Data? {
        try entry(forKey: key)?.data
    }

    /// The entry stored under `key` with its creation and expiration dates, or `nil` for a miss.
    ///
    /// ```swift
    /// if let entry = try cache.entry(forKey: "feed"), entry.creationDate > cutoff { show(entry.data) }
    /// ```
    ///
    /// - Parameter key: The key the bytes were stored under.
    /// - Returns: The verified entry, or `nil` when there is none, it expired, or it was damaged.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the file cannot be read.
    /// - Complexity: O(n) in the size of the entry.
    public func entry(forKey key: String) throws -> Entry? {
        guard key.utf8.count <= Self.maximumKeyByteCount,
            let found = try reader.read(forKey: key, options: [.payload, .markUsed], now: configuration.now())
        else { return nil }
        return Entry(
            key: key, data: found.payload, creationDate: found.header.creationDate,
            expirationDate: found.header.expirationDate)
    }

    /// The entry stored under `key` even when it has expired; an expired entry is left in place
    /// and not marked used, so that trims still take it first. What a stale fallback reads.
    ///
    /// - Parameters:
    ///   - now: The time of the read, when the caller has read ``Configuration/now`` already.
    ///   - framing: Given the verified payload, how many of its first bytes to leave out of
    ///     ``Entry/data``: a caller's own framing inside the payload (the manager's type tag), so
    ///     that the value it keeps is the read's own buffer, not a second one over it.
    /// - Returns: The verified entry, or `nil` when there is none or it was damaged.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` when the file cannot be read.
    func entryIncludingExpired(
        forKey key: String, now: Date? = nil, droppingFraming framing: (UnsafeRawBufferPointer) -> Int = { _ in 0 }
    ) throws -> Entry? {
        guard key.utf8.count <= Self.maximumKeyByteCount,
            let found = try reader.read(
                forKey: key, options: [.payload, .markUsed, .keepExpired], now: now ?? configuration.now(),
                framing: framing)
        else { return nil }
        return Entry(
            key: key, data: found.payload, creationDate: found.header.creationDate,
            expirationDate: found.header.expirationDate)
    }

    /// Removes the entry stored under `key`; a missing entry is not an error.
    ///
    /// ```swift
    /// try cache.remove(forKey: "greeting")
    /// ```
    ///
    /// - Parameter key: The key to forget.
    /// - Throws: ``DiskCacheError/removeFailed(path:call:errno:)`` when the entry's file exists and
    ///   cannot be removed; ``DiskCacheError/writeFailed(path:call:errno:)`` when the index cannot be
    ///   written.
    /// - Complexity: O(log n) in the entries: one indexed delete, one `lstat` and, for an entry in
    ///   a file, one `unlink`.
    public func remove(forKey key: String) throws {
        guard key.utf8.count <= Self.maximumKeyByteCount else { return }
        let hash = try EntryFiles.keyHash(key)
        try index.withDatabaseForCleanup { connection in
            try connection.writeTransaction {
                if try !files.removeEntry(hash, on: connection) {
                    // A file the index does not know of (left by a crash, or an earlier Hoard's).
                    try files.remove(SHA256.hex(hash))
                }
            }
        }
    }
}

// MARK: - Names

extension DiskCache {
    /// The largest inline record a read accepts: what the largest ``Configuration/inlineEntryLimit``
    /// and the longest key make. A longer one was not written by Hoard and is treated as damaged.
    static let maximumInlineRecordByteCount = Configuration.maximumInlineEntryLimit + maximumKeyByteCount + 64

    /// The folder's path, without a trailing slash.
    var rootPath: String { folder.rootPath }

    /// The folder where large records are written before they are renamed into place.
    var temporaryDirectoryPath: String { folder.temporaryDirectoryPath }

    /// Where the entry file for a key lives (for messages and tests: files are reached through
    /// ``FileStore``).
    struct Location: Sendable, Hashable {
        /// The SHA-256 of the key's UTF-8, lowercase hex: the file name.
        var fileName: String
        /// The shard folder's path: the root and the first two hex digits.
        var shardPath: String
        /// The full path of the entry file.
        var path: String
    }

    /// The entry file of `key`: `<root>/<first two hex digits>/<64 hex digits>`.
    ///
    /// - Throws: ``DiskCacheError/hashUnavailable(keyByteCount:)``.
    func location(forKey key: String) throws(DiskCacheError) -> Location {
        let fileName = try EntryFiles.fileName(forKey: key)
        return Location(
            fileName: fileName, shardPath: rootPath + "/" + EntryFiles.shardName(of: fileName), path: files.path(of: fileName))
    }

    /// The SHA-256 of `key`'s UTF-8 (see ``EntryFiles/keyHash(_:)``).
    static func keyHash(_ key: String) throws(DiskCacheError) -> [UInt8] { try EntryFiles.keyHash(key) }

    /// The SHA-256 of `key`'s UTF-8 as 64 lowercase hex digits (see ``EntryFiles/fileName(forKey:)``).
    static func fileName(forKey key: String) throws(DiskCacheError) -> String { try EntryFiles.fileName(forKey: key) }
}
