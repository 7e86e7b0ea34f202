import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// Issue 28, items 1 and 9: the space the cache takes on disk stays within its limit plus the
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

    @Test("Two processes overwriting the same keys stay within the limit together")
    func twoProcesses() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.cacheURL.path(percentEncoded: false)
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: Self.limit))
        let valueByteCount = 20_000
        let bound = Self.bound(cache, writers: 2, valueByteCount: valueByteCount)
        // Four seconds, and on until each has written more than twice the limit (slower under a
        // sanitizer on a loaded machine).
        let minimumWrites = 2 * Self.limit / valueByteCount + 1
        let arguments = ["overwrite-loop", path, "\(Self.limit)", "4", "\(valueByteCount)", "8", "\(minimumWrites)"]
        let children = try (0..<2).map { _ in try StressChild.start(arguments) }
        var peak = 0
        while children.contains(where: { $0.process.isRunning }) {
            peak = max(peak, FolderFootprint.byteCount(under: path))
            usleep(20_000)
        }
        for child in children {
            child.process.waitUntilExit()  // also lets Foundation release the process's run-loop source
            #expect(child.process.terminationStatus == 0)
            let output = String(decoding: child.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let writes = Int(output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            #expect(writes * valueByteCount > 2 * Self.limit, "child wrote too little to test the bound: \(output)")
        }
        #expect(peak <= bound, "peak \(peak) bytes on disk, bound \(bound)")
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
