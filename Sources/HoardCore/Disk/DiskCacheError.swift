import Foundation
import HoardSystem
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a ``DiskCache`` operation failed.
///
/// Every case names the file or folder involved, the C call that failed and the `errno` it left,
/// so a log line says what to fix: a full disk is `ENOSPC`, a read-only file system `EROFS`, a
/// folder the process may not write `EACCES`.
///
/// A damaged entry is never an error: it is a miss (the file is removed and the event logged).
///
/// ```swift
/// do {
///     try cache.store(data, forKey: "avatar/42")
/// } catch let error as DiskCacheError where error.errno == ENOSPC {
///     logger.warning("cache disk full: \(error)")
/// }
/// ```
public enum DiskCacheError: Error, Sendable, Hashable {
    /// The cache folder (or one of its subfolders) could not be created or listed.
    case directoryUnavailable(path: String, call: String, errno: Int32)
    /// An entry could not be written; `path` is the temporary file or the entry file.
    ///
    /// Entries that were already stored stay readable.
    case writeFailed(path: String, call: String, errno: Int32)
    /// An entry file exists but could not be read (for example `EACCES` or `EIO`).
    case readFailed(path: String, call: String, errno: Int32)
    /// An entry file could not be removed.
    case removeFailed(path: String, call: String, errno: Int32)
    /// The key's UTF-8 form is longer than ``DiskCache/maximumKeyByteCount``.
    case keyTooLong(byteCount: Int, maximum: Int)
    /// The platform's SHA-256 (OpenSSL's libcrypto on Linux, CommonCrypto on Apple platforms)
    /// failed, so the key has no file name: out of memory, or an OpenSSL configuration without
    /// SHA-256. Any operation given a key can throw it.
    case hashUnavailable(keyByteCount: Int)
    /// The folder holds files and no Hoard marker: it is not a cache, and the cache refuses to use
    /// it rather than risk deleting what is there. Use an empty or new folder.
    case notACache(path: String)
    /// Something in the cache folder where the cache keeps its own files (such as `tmp`) was not
    /// made by the cache: a symbolic link, a file, another user's folder. It is neither written
    /// into nor removed.
    case foreignItem(path: String, reason: String)
    /// The folder's marker names a cache format this version cannot read (a newer Hoard made it).
    case unsupportedFormat(path: String, marker: String)
    /// The cache's location is not a `file:` URL.
    case notAFileURL(String)
    /// A configuration value or argument the cache cannot use; the error names it.
    case invalidValue(InvalidValueError)
    /// Another connection (most likely another process, stopped or busy) held the index's write
    /// lock for longer than ``DiskCache/Configuration/writeLockTimeout``: nothing was written, and
    /// what was stored before stays readable.
    case indexBusy(path: String, waited: TimeInterval)
}

extension DiskCacheError {
    /// The `errno` of the failed call, or `nil` for the cases that are not a failed call.
    public var errno: Int32? {
        switch self {
        case .directoryUnavailable(_, _, let code), .writeFailed(_, _, let code), .readFailed(_, _, let code),
            .removeFailed(_, _, let code):
            code
        case .keyTooLong, .hashUnavailable, .notACache, .foreignItem, .unsupportedFormat, .notAFileURL, .invalidValue,
            .indexBusy:
            nil
        }
    }

    /// The file or folder involved, or `nil` for ``keyTooLong(byteCount:maximum:)``,
    /// ``hashUnavailable(keyByteCount:)`` and ``notAFileURL(_:)``.
    public var path: String? {
        switch self {
        case .directoryUnavailable(let path, _, _), .writeFailed(let path, _, _), .readFailed(let path, _, _),
            .removeFailed(let path, _, _), .notACache(let path), .foreignItem(let path, _),
            .unsupportedFormat(let path, _), .indexBusy(let path, _):
            path
        case .keyTooLong, .hashUnavailable, .notAFileURL, .invalidValue:
            nil
        }
    }
}

extension DiskCacheError: CustomStringConvertible {
    /// A sentence naming the operation, the path, the failed call and the system's explanation.
    public var description: String {
        switch self {
        case .directoryUnavailable(let path, let call, let code):
            "Disk cache folder \(path) is unavailable: \(call) failed: \(Self.explain(code))"
        case .writeFailed(let path, let call, let code):
            "Cannot write disk cache entry \(path): \(call) failed: \(Self.explain(code))"
        case .readFailed(let path, let call, let code):
            "Cannot read disk cache entry \(path): \(call) failed: \(Self.explain(code))"
        case .removeFailed(let path, let call, let code):
            "Cannot remove disk cache entry \(path): \(call) failed: \(Self.explain(code))"
        case .keyTooLong(let count, let maximum):
            "Disk cache key is \(count) bytes of UTF-8; the maximum is \(maximum)"
        case .hashUnavailable(let count):
            "Cannot name the disk cache entry of a \(count)-byte key: the system's SHA-256 failed"
        case .notACache(let path):
            "\(path) is not a Hoard cache and is not empty; refusing to use it (a cache folder must be new, empty, "
                + "or made by Hoard, which marks it with \(DiskCache.markerFileName))"
        case .foreignItem(let path, let reason):
            "\(path) is \(reason), not something the cache made; refusing to write into it or remove from it"
        case .unsupportedFormat(let path, let marker):
            "\(path) holds a cache of a format this version of Hoard cannot use (its marker says \"\(marker)\")"
        case .notAFileURL(let url):
            "A disk cache needs a file URL, got \(url)"
        case .invalidValue(let error):
            "Invalid value: \(error)"
        case .indexBusy(let path, let waited):
            "Disk cache index \(path) is locked by another writer (a stopped or busy process?): waited \(waited) s; "
                + "nothing was written"
        }
    }

    private static func explain(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
