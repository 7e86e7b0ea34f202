import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// A trim by recency removes the least recently used entries down to the
/// low-water mark, whatever the records' sizes and places, and keeps every entry more recently
/// used than one it removed. (On c004120 a trim of 10,000 records of 500 B to 1 MiB kept none.)
@Suite("A trim by recency stops at the low-water mark for any mix of record sizes")
struct DiskCacheTrimMixTests {
    /// A mix of value sizes, cycled through as entries are stored.
    struct Mix: CustomTestStringConvertible, Sendable {
        var name: String
        var valueSizes: [Int]
        var entryCount: Int
        var sizeLimit: Int
        var testDescription: String { name }
    }

    static let mixes = [
        Mix(name: "10,000 × 500 B in the index, to 1 MiB", valueSizes: [500], entryCount: 10_000, sizeLimit: 1 << 20),
        Mix(name: "3,000 × 4 KiB in segments, to 2 MiB", valueSizes: [4096], entryCount: 3_000, sizeLimit: 2 << 20),
        Mix(name: "60 × 100 KiB in files, to 2 MiB", valueSizes: [100 << 10], entryCount: 60, sizeLimit: 2 << 20),
        Mix(
            name: "500 B, 4 KiB and 100 KiB mixed, to 4 MiB", valueSizes: [500, 500, 500, 4096, 500, 100 << 10],
            entryCount: 3_000, sizeLimit: 4 << 20),
    ]

    @Test("Filled past the limit, then trimmed", arguments: mixes)
    func trimStopsAtTheMark(mix: Mix) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = TestClock()
        let filler = try DiskCache(
            directory: folder.cacheURL,
            configuration: DiskCache.Configuration(sizeLimit: 1 << 30, rescanInterval: 3600, now: clock.closure))
        let keys = (0..<mix.entryCount).map { "entry-\($0)" }
        for (number, key) in keys.enumerated() {
            try filler.store(Data(repeating: UInt8(number % 251), count: mix.valueSizes[number % mix.valueSizes.count]), forKey: key)
            clock.advance(by: 1)
        }
        let configuration = DiskCache.Configuration(sizeLimit: mix.sizeLimit, rescanInterval: 3600, now: clock.closure)
        let cache = try DiskCache(directory: folder.cacheURL, configuration: configuration)
        try cache.trim()

        let kept = Set(try cache.keys())
        // By recency: what is kept is the newest entries, every one of them.
        let firstKept = try #require(keys.firstIndex { kept.contains($0) }, "the trim kept nothing")
        #expect(kept == Set(keys[firstKept...]), "an entry newer than one removed was removed too")
        // Down to the mark, not below it by more than a few records.
        let counted = cache.estimatedByteCount()
        let largest = mix.valueSizes.max()! + 64
        #expect(counted <= configuration.lowWaterMark)
        #expect(counted >= configuration.lowWaterMark - max(largest, mix.sizeLimit / 20), "counted \(counted)")
        // What is kept is mostly records, not bookkeeping.
        let recordBytes = try cache.totalSize
        #expect(recordBytes >= mix.sizeLimit / 2, "records kept: \(recordBytes)")
        let footprint = FolderFootprint.byteCount(under: folder.cacheURL.path)
        #expect(footprint <= mix.sizeLimit + configuration.slackByteCount, "\(FolderFootprint.largestFiles(under: folder.cacheURL.path))")
        // And it reads back.
        for key in keys[firstKept...].suffix(20) {
            let number = keys.firstIndex(of: key)!
            #expect(try cache.data(forKey: key) == Data(repeating: UInt8(number % 251), count: mix.valueSizes[number % mix.valueSizes.count]))
        }
    }
}

/// A trim runs in batches that release the write lock, a writer runs at most
/// its own share of it, and no store waits past the write-lock wait because of maintenance. (On
/// c004120 a store that found the cache over its limit ran the whole trim: 41.6 s at 1 M entries.)
@Suite("A trim never holds writers")
struct DiskCacheTrimSharesTests {
    /// A folder of `count` records of 500 B, stored under no limit to speak of.
    static func filledFolder(count: Int) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        let filler = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 30, rescanInterval: 3600))
        for number in 0..<count { try filler.store(Data(repeating: UInt8(number % 251), count: 500), forKey: "entry-\(number)") }
        return folder
    }

    @Test("A store over the limit removes at most its share itself; the cache's queue does the rest")
    func writersShare() throws {
        let folder = try Self.filledFolder(count: 12_000)
        defer { folder.remove() }
        let log = LogRecorder()
        let cache = try DiskCache(
            directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 20, rescanInterval: 3600, logger: log.logger()))
        try cache.store(Data("new".utf8), forKey: "new")
        let writers = log.lines(containing: "Trimmed disk cache").filter { $0.metadata["batch"] != nil }
        #expect(writers.count == 1)
        #expect(writers.first?.metadata["removed"] == "\(Maintenance.writerRowCount)")
        cache.waitForScheduledTrims()
        #expect(cache.estimatedByteCount() <= cache.configuration.lowWaterMark)
        #expect(try cache.data(forKey: "new") == Data("new".utf8))
        #expect(try cache.entryCount < 12_000 - Maintenance.writerRowCount)
    }

    @Test("Stores beside a trim of 30,000 entries in another instance never wait out the write lock")
    func storesBesideATrim() throws {
        let folder = try Self.filledFolder(count: 30_000)
        defer { folder.remove() }
        let trimmer = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 20, rescanInterval: 3600))
        let writer = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 30, rescanInterval: 3600))
        let trimming = Lock(true)
        let trimError = Lock<String?>(nil)
        let finished = DispatchGroup()
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            do { try trimmer.trim() } catch { trimError.withLock { $0 = "\(error)" } }
            trimming.withLock { $0 = false }
        }
        var stores = 0
        var failures: [String] = []
        while trimming.withLock({ $0 }) {
            do {
                try writer.store(Data(repeating: 7, count: 500), forKey: "beside-\(stores % 100)")
            } catch {
                failures.append("\(error)")
            }
            stores += 1
        }
        finished.wait()
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(trimError.withLock { $0 } == nil)
        #expect(stores > 10, "the trim was over before the stores could test it")
        #expect(trimmer.estimatedByteCount() <= trimmer.configuration.lowWaterMark + 64 * 1024)
    }
}
