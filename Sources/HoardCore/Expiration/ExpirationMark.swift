import Foundation
import HoardSystem
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The moment before which every value of a cache counts as expired: what ``Hoard/expireAll()``
/// sets, shared with other processes through a small file in the cache folder.
///
/// The file, `<cache folder>/expired-before`, holds one line: the moment as seconds since the
/// reference date (2001-01-01 UTC), written so that it reads back bit for bit. It is replaced with
/// `rename(2)`, so a reader sees the old mark or the new one. Expiring a cache therefore writes one
/// small file and reads none of the entries: each read compares the entry's creation date with the
/// mark. Readers re-read the file at most once per refresh interval (monotonic time), so another
/// process's ``Hoard/expireAll()`` takes effect here within that interval; this process's own
/// takes effect at once. The mark only moves forward, and never past the clock: a mark found in
/// the file ahead of it (written by an older version from another machine's fast clock) is taken
/// at the moment it is read, and the file is rewritten with that moment.
final class ExpirationMark: Sendable {
    /// The mark file's name in the cache folder.
    static let fileName = "expired-before"

    private struct State {
        /// The latest mark seen or set.
        var date: Date?
        /// When the file is next due to be read.
        var nextRead = MonotonicInstant(nanoseconds: 0)
        /// Whether a thread is reading the file (others use the mark they have meanwhile).
        var isReading = false
    }

    /// The mark file, or `nil` when the cache has no disk tier.
    let path: String?
    let refreshInterval: Duration
    let logger: Logger
    let now: @Sendable () -> Date
    /// All mutable state; touched only inside `withLock`.
    private let state = Lock(State())

    /// - Parameters:
    ///   - directory: The cache folder, or `nil` when there is none (the mark then lives in memory).
    ///   - refreshInterval: The longest time another process's mark goes unnoticed, in seconds.
    ///   - logger: Where a damaged mark file is reported.
    ///   - now: The cache's clock.
    init(directory: URL?, refreshInterval: TimeInterval, logger: Logger, now: @escaping @Sendable () -> Date) {
        path = directory.map { $0.appendingPathComponent(Self.fileName).path(percentEncoded: false) }
        // Validated to 0...86400 by the configuration; held there again before the conversion.
        self.refreshInterval = .milliseconds(Int64(min(max(0, refreshInterval), 86_400) * 1000))
        self.logger = logger
        self.now = now
    }

    /// The mark: values stored before this moment have expired. `nil` when there is none.
    ///
    /// - Complexity: O(1); one small file read per refresh interval.
    func current() -> Date? {
        guard let path else { return state.withLock { $0.date } }
        let now = MonotonicInstant.now
        let (date, isDue) = state.withLock { state -> (Date?, Bool) in
            let isDue = !state.isReading && now >= state.nextRead
            if isDue {
                state.isReading = true
                state.nextRead = now.advanced(by: refreshInterval)
            }
            return (state.date, isDue)
        }
        guard isDue else { return date }
        var stored = read(path)
        if let future = stored, case let moment = self.now(), future > moment {
            logger.warning(
                "The expiration mark lies ahead of the clock; taken as now",
                metadata: ["path": .string(path), "mark": .string("\(future)")])
            stored = moment
            write(moment, to: path)
        }
        return state.withLock { state in
            state.isReading = false
            state.date = Self.later(state.date, stored)
            return state.date
        }
    }

    /// Moves the mark to `date` (unless it is already later) and writes it for other processes.
    ///
    /// - Returns: The mark now in force.
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the file cannot be written; the mark still applies in
    ///   this process.
    @discardableResult
    func advance(to date: Date) throws(HoardError) -> Date {
        let date = min(date, now())
        let mark = state.withLock { state -> Date in
            let mark = Self.later(state.date, date) ?? date
            state.date = mark
            return mark
        }
        guard let path else { return mark }
        if case .failure(let error) = FileSystem.writeAtomically(Self.contents(mark), to: path) {
            throw .tier(.disk, underlying: DiskCacheError.writeFailed(path: error.path ?? path, call: error.call, errno: error.errno))
        }
        return mark
    }

    // MARK: - Private

    /// Replaces a future mark in the file by `date` (a failure is logged: the mark read applies).
    private func write(_ date: Date, to path: String) {
        if case .failure(let error) = FileSystem.writeAtomically(Self.contents(date), to: path) {
            logger.warning(
                "Cannot rewrite the expiration mark", metadata: ["path": .string(path), "error": .string("\(error)")])
        }
    }

    /// The mark in the file, or `nil` when there is no file or it does not hold one (logged).
    private func read(_ path: String) -> Date? {
        let descriptor: Int32
        switch FileSystem.open(path, flags: FileSystem.readOnlyFlags) {
        case .success(let opened):
            descriptor = opened
        case .failure(let error) where error.errno == ENOENT:
            return nil
        case .failure(let error):
            logger.warning(
                "Cannot read the expiration mark", metadata: ["path": .string(path), "error": .string("\(error)")])
            return nil
        }
        defer { FileSystem.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { FileSystem.readFully(descriptor, into: $0, at: 0) }
        guard case .success(let length) = count,
            let seconds = Double(
                String(decoding: bytes.prefix(length), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            seconds.isFinite
        else {
            logger.warning("Ignoring a damaged expiration mark", metadata: ["path": .string(path)])
            return nil
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// The file's line for `date`: seconds since the reference date, read back bit for bit.
    private static func contents(_ date: Date) -> [UInt8] {
        Array("\(date.timeIntervalSinceReferenceDate)\n".utf8)
    }

    private static func later(_ first: Date?, _ second: Date?) -> Date? {
        switch (first, second) {
        case (let first?, let second?): max(first, second)
        case (let date?, nil), (nil, let date?): date
        case (nil, nil): nil
        }
    }
}
