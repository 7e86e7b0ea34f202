import Foundation
import Hoard
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a thumbnail file atomically and cheaply.
///
/// A file that already holds exactly the bytes is left alone, so a rerun writes nothing. Otherwise
/// the bytes go to a temporary file beside the destination, which is then renamed over it: a
/// failed or killed run never leaves a partial file under the final name. There is no `fsync`
/// (Foundation's atomic write does one per file): every thumbnail can be made again from the cache,
/// so durability across a power cut is not worth a disk flush per file.
enum OutputFile {
    /// What ``write(_:to:)`` did.
    enum Outcome: Equatable {
        case written
        case unchanged
    }

    /// Makes `path` hold `data`.
    ///
    /// - Throws: ``RunFailure`` naming the path and the failing call.
    static func write(_ data: Data, to path: String) throws -> Outcome {
        if holds(data, path) { return .unchanged }
        if case .failure(let error) = FileSystem.writeAtomically(data, to: path) {
            throw failure(error.call, error.path ?? path, errno: error.errno)
        }
        return .written
    }

    /// Removes the regular file at `path` (a link or anything else there is left alone).
    ///
    /// - Returns: Whether a file was removed.
    static func removeStale(at path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return unlink(path) == 0
    }

    /// Whether the regular file at `path` holds exactly `data`.
    private static func holds(_ data: Data, _ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) == data.count,
            let existing = try? LocalFile.read(path, maximumByteCount: data.count)
        else { return false }
        return existing == data
    }

    private static func failure(_ call: String, _ path: String, errno code: Int32 = errno) -> RunFailure {
        RunFailure("cannot write \(path): \(call) failed: \(String(cString: strerror(code)))")
    }
}
