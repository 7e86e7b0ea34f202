import Foundation
import HoardSystem
import Logging

extension DiskCache {
    /// How a ``DiskCache`` bounds its size, tracks recency, logs and tells the time.
    ///
    /// The defaults suit an application cache of a few hundred megabytes. Tests inject a clock
    /// through ``now`` and a capturing `Logger` through ``logger``.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration(sizeLimit: 50 * 1024 * 1024)
    /// configuration.logger = Logger(label: "app.thumbnails")
    /// let cache = try DiskCache(directory: cachesFolder.appending(path: "thumbnails"),
    ///                           configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The most bytes the cache may take on disk before the least recently used entries are
        /// removed: its segment files (records removed or replaced but not yet compacted away
        /// included), its entry files, and its index past its first 64 KiB; the index's log is
        /// part of ``slackByteCount``. Checked after every write, in every process sharing the
        /// folder (the count is kept in the index); see ``DiskCache/trim()``.
        public var sizeLimit: Int
        /// The fraction of ``sizeLimit`` a trim removes down to (default 0.8), so that trims are
        /// rare rather than one per write once the cache is full.
        public var lowWaterMarkRatio: Double
        /// A read hit marks the entry as used (sets its index row's last-use date) only when the
        /// last mark is at least this old (default 60 s): recency has this granularity, and
        /// repeated reads of a hot entry cost no write.
        public var recencyUpdateInterval: TimeInterval
        /// After a write, a trim runs when the last one started at least this long before the write
        /// (default 60 s), even under the limit: it counts the bytes on disk again from the tables,
        /// compacts segments and removes temporary files writers that died left. Bytes other
        /// processes write count at once either way (the count is shared); 0 trims after every write.
        public var rescanInterval: TimeInterval
        /// Temporary files are normally recognised as abandoned by their lock (a writer holds an
        /// `flock(2)` lock until its rename, and the kernel drops it when the writer dies). On a file
        /// system without `flock`, a temporary file untouched for this long (default 600 s) is
        /// abandoned instead.
        public var abandonedTemporaryFileAge: TimeInterval
        /// Entries whose record (header, key and value) is at most this many bytes (default
        /// ``defaultInlineEntryLimit``) share files rather than each having a file of its own:
        /// storing one creates no file. Records under 2 KiB are kept inside the cache's index
        /// database, larger ones in shared segment files. 0 gives every entry its own file. At
        /// most ``maximumInlineEntryLimit``.
        public var inlineEntryLimit: Int
        /// The longest a store, removal or trim waits for another connection's write (another
        /// process mid-write, or one stopped while it held the index's write lock) before it fails
        /// with ``DiskCacheError/indexBusy(path:waited:)`` (default 2 s, at most 3600). Reads never
        /// wait for a writer: a recency mark that cannot be written at once is dropped.
        public var writeLockTimeout: TimeInterval = 2
        /// Where damaged entries, trims and removed temporary files are reported.
        public var logger: Logger
        /// The clock: creation dates, expiry and recency all use it.
        public var now: @Sendable () -> Date
        /// Told how many entries each trim removed, when it removed any. For ``Hoard``'s statistics.
        var onTrim: (@Sendable (_ removedCount: Int) -> Void)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - sizeLimit: The byte limit, at least 1. Default 256 MiB.
        ///   - lowWaterMarkRatio: Where a trim stops, as a fraction of `sizeLimit`, in (0, 1].
        ///   - recencyUpdateInterval: The granularity of recency tracking, in seconds.
        ///   - rescanInterval: How often writes re-scan the folder, in seconds.
        ///   - abandonedTemporaryFileAge: The age fallback for abandoned temporary files, in seconds.
        ///   - inlineEntryLimit: The largest record kept in shared files (the index, or a
        ///     segment), in bytes, 0 through ``maximumInlineEntryLimit``.
        ///   - logger: The logger; default label `"Hoard.DiskCache"`.
        ///   - now: The clock; default `Date.init`.
        /// - Complexity: O(1).
        public init(
            sizeLimit: Int = 256 * 1024 * 1024,
            lowWaterMarkRatio: Double = 0.8,
            recencyUpdateInterval: TimeInterval = 60,
            rescanInterval: TimeInterval = 60,
            abandonedTemporaryFileAge: TimeInterval = 600,
            inlineEntryLimit: Int = defaultInlineEntryLimit,
            logger: Logger = Logger(label: "Hoard.DiskCache"),
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.sizeLimit = sizeLimit
            self.lowWaterMarkRatio = lowWaterMarkRatio
            self.recencyUpdateInterval = recencyUpdateInterval
            self.rescanInterval = rescanInterval
            self.abandonedTemporaryFileAge = abandonedTemporaryFileAge
            self.inlineEntryLimit = inlineEntryLimit
            self.logger = logger
            self.now = now
        }

        /// The default ``inlineEntryLimit``: 64 KiB of value and a key of up to 4 KiB.
        public static let defaultInlineEntryLimit = 68 * 1024

        /// The largest ``inlineEntryLimit`` accepted: 4 MiB.
        public static let maximumInlineEntryLimit = 4 * 1024 * 1024

        /// Checks every limit, ratio and interval; ``DiskCache/init(directory:configuration:)`` calls it.
        ///
        /// - Throws: ``InvalidValueError`` naming the field.
        func validate() throws(InvalidValueError) {
            try InvalidValueError.check(sizeLimit, atLeast: 1, "DiskCache.Configuration.sizeLimit")
            guard lowWaterMarkRatio > 0, lowWaterMarkRatio <= 1 else {
                throw InvalidValueError(
                    field: "DiskCache.Configuration.lowWaterMarkRatio", value: "\(lowWaterMarkRatio)",
                    requirement: "more than 0 and at most 1")
            }
            try InvalidValueError.check(recencyUpdateInterval, atLeast: 0, "DiskCache.Configuration.recencyUpdateInterval")
            try InvalidValueError.check(rescanInterval, atLeast: 0, "DiskCache.Configuration.rescanInterval")
            try InvalidValueError.check(
                abandonedTemporaryFileAge, atLeast: 0, "DiskCache.Configuration.abandonedTemporaryFileAge")
            try InvalidValueError.check(writeLockTimeout, atLeast: 0, "DiskCache.Configuration.writeLockTimeout")
            guard writeLockTimeout <= 3600 else {
                throw InvalidValueError(
                    field: "DiskCache.Configuration.writeLockTimeout", value: "\(writeLockTimeout)",
                    requirement: "at most 3600 seconds")
            }
            guard (0...Self.maximumInlineEntryLimit).contains(inlineEntryLimit) else {
                throw InvalidValueError(
                    field: "DiskCache.Configuration.inlineEntryLimit", value: "\(inlineEntryLimit)",
                    requirement: "from 0 to \(Self.maximumInlineEntryLimit)")
            }
        }

        /// How far past ``sizeLimit`` the folder may grow: the index's write-ahead log (which every
        /// writer cuts back once it passes its limit of a sixteenth of the size limit, from 64 KiB
        /// to 4 MiB, so twice that: the limit and the transactions that pass it), the log's own
        /// index (`index.sqlite-shm`, 32 KiB), the index's first 64 KiB (its schema and the first
        /// pages of its tables), and the room kept for a clean-up on a full disk (half the log's
        /// limit and 64 KiB, the file `space-reserve`), and 4 KiB for the folder's own small files
        /// (`CACHEDIR.TAG`, `.hoard-cache`, `expired-before`). Records being written at that moment
        /// come on top.
        public var slackByteCount: Int {
            let logLimit = IndexLog.byteLimit(forSizeLimit: sizeLimit)
            return 2 * logLimit + IndexLog.sharedMemoryByteCount + DiskUsage.indexAllowance
                + SpaceReserve.byteCount(forLogByteLimit: logLimit) + CacheFolder.ownFilesByteAllowance
        }

        /// The byte count a trim removes down to.
        var lowWaterMark: Int {
            Int(Double(sizeLimit) * lowWaterMarkRatio)
        }
    }
}
