import Foundation
import HoardTestSupport

@testable import HoardCore

/// The disk tier's parts (``DiskCache/Parts``) in a new folder, without the façade: so that a
/// suite can drive one part through its own methods and check what it promises.
struct DiskParts {
    let directory: TemporaryDirectory
    let clock: TestClock
    let log: LogRecorder
    let configuration: DiskCache.Configuration
    let folder: CacheFolder
    let index: DiskIndex
    let segments: SegmentStore
    let files: FileStore
    let reconciler: Reconciler
    let maintenance: Maintenance
    let writer: RecordWriter
    let reader: RecordReader
    let marks: RecencyMarks

    /// Parts of a cache with `sizeLimit` whose trims run only when asked for (a rescan interval of a
    /// day) unless the bytes pass the limit.
    init(sizeLimit: Int = 64 << 20, function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        clock = TestClock()
        log = LogRecorder()
        configuration = DiskCache.Configuration(
            sizeLimit: sizeLimit, rescanInterval: 86_400, logger: log.logger(), now: clock.closure)
        let rootPath = directory.cacheURL.path(percentEncoded: false).replacing(/\/$/, with: "")
        _ = try CacheFolder.prepare(rootPath, logger: configuration.logger)
        let parts = try DiskCache.Parts(rootPath: rootPath, configuration: configuration)
        (folder, index, segments, files) = (parts.folder, parts.index, parts.segments, parts.files)
        (reconciler, maintenance, writer, reader) = (parts.reconciler, parts.maintenance, parts.writer, parts.reader)
        marks = parts.marks
        try index.prepare()
    }

    /// The header of a record of `byteCount` payload bytes for `key`, created now.
    func header(_ key: String, byteCount: Int, expiring: Date? = nil) -> CacheRecord.Header {
        CacheRecord.Header(
            key: key, creationDate: clock.now, expirationDate: expiring, payloadByteCount: byteCount, payloadChecksum: 0)
    }

    /// `byteCount` bytes that differ from key to key.
    static func payload(_ key: String, byteCount: Int) -> Data {
        var generator = SplitMix64(seed: key.utf8.reduce(17) { $0 &* 31 &+ UInt64($1) })
        return Data((0..<byteCount).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    /// Stores `payload` under `key` through the writer (no automatic trim: the façade's job).
    @discardableResult
    func store(_ key: String, _ payload: Data) throws -> DiskUsage {
        try writer.store(
            header: header(key, byteCount: payload.count), payload: payload, hash: try EntryFiles.keyHash(key),
            now: clock.now)
    }

    /// The payload the reader finds under `key`.
    func read(_ key: String) throws -> Data? {
        try reader.read(forKey: key, options: [.payload], now: clock.now)?.payload
    }

    /// The placement the index gives `key`, or `nil` without a row.
    func placement(_ key: String) throws -> IndexRow.Placement? {
        let hash = try EntryFiles.keyHash(key)
        return try index.withDatabase(writing: false) { try EntryTable(connection: $0).row(hash)?.placement }
    }

    func remove() { directory.remove() }
}
