import HoardCore
import HoardSystem
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ThumbnailKey {
    /// A local file's size and modification time, to the nanosecond: what tells the tool that a
    /// file has changed since its thumbnail was made.
    ///
    /// In a key it reads ` bytes=<size> modified=<seconds>.<nanoseconds>` (nine digits), seconds
    /// since 1970 as `stat(2)` gives them.
    ///
    /// ```swift
    /// let fingerprint = try ThumbnailKey.FileFingerprint(file: "/photos/beach.jpg")
    /// let key = try ThumbnailKey(source: "file:///photos/beach.jpg", fingerprint: fingerprint, size: 256)
    /// ```
    public struct FileFingerprint: Sendable, Hashable, CustomStringConvertible {
        /// The file's size in bytes.
        public let byteCount: Int
        /// The whole seconds of its modification time, since 1970-01-01 00:00 UTC (negative before).
        public let modificationSeconds: Int
        /// The nanoseconds of its modification time, 0-999,999,999.
        public let modificationNanoseconds: Int

        /// Creates a fingerprint from known values (a file elsewhere, or a test).
        ///
        /// ```swift
        /// let fingerprint = try ThumbnailKey.FileFingerprint(
        ///     byteCount: 2_411_725, modificationSeconds: 1_718_000_000, modificationNanoseconds: 123_456_789)
        /// ```
        ///
        /// - Parameters:
        ///   - byteCount: The size, at least 0.
        ///   - modificationSeconds: Seconds since 1970.
        ///   - modificationNanoseconds: 0-999,999,999.
        /// - Throws: ``ThumbnailKeyError/invalidValue(_:)`` naming the field out of range.
        public init(byteCount: Int, modificationSeconds: Int, modificationNanoseconds: Int) throws(ThumbnailKeyError) {
            do {
                try InvalidValueError.check(byteCount, atLeast: 0, "ThumbnailKey.FileFingerprint.byteCount")
                try InvalidValueError.check(
                    modificationNanoseconds, in: 0...999_999_999, "ThumbnailKey.FileFingerprint.modificationNanoseconds"
                )
            } catch {
                throw .invalidValue(error)
            }
            self.byteCount = byteCount
            self.modificationSeconds = modificationSeconds
            self.modificationNanoseconds = modificationNanoseconds
        }

        /// Reads the fingerprint of the file at `path` with one `stat(2)` call (links followed).
        ///
        /// ```swift
        /// let fingerprint = try ThumbnailKey.FileFingerprint(file: "/photos/beach.jpg")
        /// ```
        ///
        /// - Parameter path: The file.
        /// - Throws: ``ThumbnailKeyError/fileUnavailable(path:call:errno:)`` naming `stat` and its errno.
        public init(file path: String) throws(ThumbnailKeyError) {
            var status = stat()
            guard stat(path, &status) == 0 else { throw .fileUnavailable(path: path, call: "stat", errno: errno) }
            #if canImport(Darwin)
                let modified = status.st_mtimespec
            #else
                let modified = status.st_mtim
            #endif
            byteCount = Int(status.st_size)
            modificationSeconds = Int(modified.tv_sec)
            modificationNanoseconds = Int(modified.tv_nsec)
        }

        /// `bytes=<size> modified=<seconds>.<nanoseconds>`, as in a key.
        public var description: String {
            "bytes=\(byteCount) modified=\(modificationSeconds).\(String(modificationNanoseconds).zeroPadded(toLength: 9))"
        }
    }
}
