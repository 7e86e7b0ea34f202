import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index's write-ahead log: its size limit for a cache, how much one transaction of
/// maintenance may add to it, and the cut-back every writer runs.
///
/// Invariant: the log stays within its limit and the transactions that pass it, which is its
/// share of ``DiskCache/Configuration/slackByteCount``: every writer in every process cuts back a
/// log past its limit (see ``cutBack(on:)``), what a read writes never adds to a log past it (a
/// connection that does not wait fails instead, see ``SQLiteConnection/writeTransaction(_:)``),
/// and no transaction of maintenance adds more than an eighth
/// of it.
struct IndexLog: Sendable {
    /// The log's path: the database's, with `-wal`.
    let path: String
    /// The log's size limit for this cache (see ``byteLimit(forSizeLimit:)``).
    let byteLimit: Int
    /// How long a cut-back may try, in milliseconds: the index's busy timeout.
    let busyTimeoutMilliseconds: Int32

    /// The size the log is cut back to when it starts over (`journal_size_limit`), at most.
    static let maximumByteLimit = 4 * 1024 * 1024

    /// The size of the log's index, `index.sqlite-shm`: SQLite's 32 KiB, enough for a log of
    /// 4,062 pages (16 MiB), four times the largest log limit.
    static let sharedMemoryByteCount = 32 * 1024

    /// The log's size for a cache of `sizeLimit` bytes: a sixteenth of it, from 64 KiB to
    /// ``maximumByteLimit``. Part of ``DiskCache/Configuration/slackByteCount``.
    static func byteLimit(forSizeLimit sizeLimit: Int) -> Int {
        min(max(sizeLimit / 16, 64 * 1024), maximumByteLimit)
    }

    /// Rows a maintenance transaction (a batch of removals or of moved records) changes at most:
    /// at about two pages a row, an eighth of the log's limit, from 4 to 256 rows, so that no one
    /// transaction takes the log far past its limit.
    var maintenanceBatchRowCount: Int { min(max(byteLimit / DiskIndex.pageByteCount / 16, 4), 256) }

    /// Free pages one step of a vacuum gives back at most: moving a page writes it, its parent
    /// and the pointer map, so a sixteenth of the log's limit, from 2 to 256 pages.
    var vacuumStepPageCount: Int { min(max(byteLimit / DiskIndex.pageByteCount / 16, 2), 256) }

    /// Whether the log is within its limit; a log that cannot be looked at counts as within it.
    var isWithinLimit: Bool {
        guard case .success(let log) = FileSystem.linkStatus(path) else { return true }
        return log.byteCount <= byteLimit
    }

    /// Before and after a write: when the log has grown past its limit (readers in this or another
    /// process kept every checkpoint from starting it over), copies it into the database and cuts
    /// it to nothing on `connection`, for at most the busy timeout (see ``cutBack(on:until:)``).
    func cutBack(on connection: SQLiteConnection) {
        let deadline = MonotonicInstant.now.advanced(by: .milliseconds(Int(busyTimeoutMilliseconds)))
        cutBack(on: connection, until: deadline)
    }

    /// While the log is past its limit, checkpoints it on `connection`, cutting it to nothing,
    /// trying again while readers or another process's checkpoint (which SQLite does not wait
    /// for) keep it from that, until `deadline`: a deadline already past means one try. A
    /// checkpoint that fails (a full disk) ends the tries at once.
    ///
    /// - Returns: Whether the log is within its limit; when not, the write is left to go on past
    ///   it or to fail, as its caller decides.
    @discardableResult
    func cutBack(on connection: SQLiteConnection, until deadline: MonotonicInstant) -> Bool {
        while !isWithinLimit {
            // A checkpoint that fails (a full disk) ends the tries.
            guard let isCut = try? DatabaseFile(connection: connection).checkpoint(truncating: true) else {
                return false
            }
            guard !isCut else { continue }
            guard MonotonicInstant.now < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
