import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// The space the cache takes on disk stays within its limit plus the
/// stated slack under overwrites and removals, and a damaged number in the index empties nothing.
@Suite("DiskCache: bytes on disk stay bounded", .serialized)
struct DiskCacheBoundTests {
    static let limit = 16 << 20

    /// The most the folder may hold: the limit plus ``DiskCache/Configuration/slackByteCount``
    /// and one record per writer in flight.
    static func bound(_ cache: DiskCache, writers: Int, valueByteCount: Int) -> Int {
        cache.configuration.sizeLimit + cache.configuration.slackByteCount + writers * (valueByteCount + 4096)
    }

    @Test("Eight keys overwritten in a loop under a 16 MiB limit", arguments: [20_000, 60_000, 200_000])
    func overwrites(valueByteCount: Int) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: Self.limit))
        let bound = Self.bound(cache, writers: 1, valueByteCount: valueByteCount)
        var peak = 0
        // About six times the limit written.
        let writes = 6 * Self.limit / valueByteCount
        for round in 0..<writes {
            let key = "key-\(round % 8)"
            try cache.store(StressValue.make(key: key, version: UInt64(round), byteCount: valueByteCount), forKey: key)
            if round % 8 == 0 { try cache.remove(forKey: "key-\((round / 8) % 8)") }
            if round % 16 == 0 { peak = max(peak, FolderFootprint.byteCount(under: folder.cacheURL.path)) }
        }
        peak = max(peak, FolderFootprint.byteCount(under: folder.cacheURL.path))
        #expect(peak <= bound, "peak \(peak) bytes on disk, bound \(bound)")
        // The live values are still there.
        let last = writes - 1
        let key = "key-\(last % 8)"
        #expect(try cache.data(forKey: key) == StressValue.make(key: key, version: UInt64(last), byteCount: valueByteCount))
    }

    /// A shared cache under load: its size limit, its values' size and how many keys.
    struct Load: CustomTestStringConvertible, Sendable {
        var limit: Int
        var valueByteCount: Int
        var keyCount: Int
        var testDescription: String { "\(limit >> 20) MiB, \(keyCount) keys of \(valueByteCount) B" }
    }

    /// Two processes storing and reading 500 B values in a 1 MiB cache once took 2.86-3.50 MB
    /// (bound 1,343,488), the index's log 1.9 MB of it.
    @Test(
        "Two processes overwriting the same keys stay within the limit together",
        arguments: [Load(limit: 16 << 20, valueByteCount: 20_000, keyCount: 8), Load(limit: 1 << 20, valueByteCount: 500, keyCount: 5_000)])
    func twoProcesses(load: Load) async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.cacheURL.path(percentEncoded: false)
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: load.limit))
        let valueByteCount = load.valueByteCount
        let bound = Self.bound(cache, writers: 2, valueByteCount: valueByteCount)
        // Four seconds, and on until each has written more than twice the limit (slower under a
        // sanitizer on a loaded machine).
        let minimumWrites = 2 * load.limit / valueByteCount + 1
        let arguments = ["overwrite-loop", path, "\(load.limit)", "4", "\(valueByteCount)", "\(load.keyCount)", "\(minimumWrites)"]
        let children = try (0..<2).map { _ in try StressChild.start(arguments) }
        var peak = 0
        var peakFiles: [String] = []
        while children.contains(where: { $0.process.isRunning }) {
            let footprint = FolderFootprint.byteCount(under: path)
            if footprint > peak { (peak, peakFiles) = (footprint, FolderFootprint.largestFiles(under: path)) }
            usleep(20_000)
        }
        for child in children {
            child.process.waitUntilExit()  // also lets Foundation release the process's run-loop source
            #expect(child.process.terminationStatus == 0)
            let output = String(decoding: child.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let writes = Int(output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            #expect(writes * valueByteCount > 2 * load.limit, "child wrote too little to test the bound: \(output)")
        }
        #expect(peak <= bound, "peak \(peak) bytes on disk, bound \(bound): \(peakFiles)")
    }

    @Test("A row whose size reads 2^63 - 1 does not make a trim remove every entry")
    func damagedSize() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let log = LogRecorder()
        let cache = try DiskCache(
            directory: folder.cacheURL,
            configuration: .init(sizeLimit: Self.limit, rescanInterval: 0, logger: log.logger()))
        let values = (0..<20).map { (key: "key-\($0)", value: StressValue.make(key: "key-\($0)", version: 1, byteCount: [100, 10_000, 100_000][$0 % 3])) }
        for (key, value) in values { try cache.store(value, forKey: key) }
        let hash = try DiskCache.keyHash("key-0")
        try cache.index.withConnection(writing: true) { connection in
            let update = try connection.uncachedStatement("UPDATE entries SET size = 9223372036854775807 WHERE hash = ?1")
            defer { update.reset() }
            update.bind(1, hash)
            try update.run()
        }
        try cache.store(Data("trigger".utf8), forKey: "trigger")  // a rescan interval of 0: a trim follows
        try cache.trim()
        for (key, value) in values.dropFirst() {
            #expect(try cache.data(forKey: key) == value, "\(key) lost")
        }
        #expect(try cache.data(forKey: "trigger") == Data("trigger".utf8))
    }
}
