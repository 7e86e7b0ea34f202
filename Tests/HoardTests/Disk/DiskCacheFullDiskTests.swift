import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// On a disk the cache itself filled, every clean-up frees space, and stores
/// work again afterwards.
@Suite("DiskCache: a full disk", .serialized, .enabled(if: Tmpfs.canMount, "needs root and mount rights for a small tmpfs"))
struct DiskCacheFullDiskTests {
    enum Cleanup: String, CaseIterable, CustomTestStringConvertible {
        case removeAll, trimToLimit, removeOne, removeByPredicate, removeExpired
        var testDescription: String { rawValue }
    }

    /// Fills an 8 MiB tmpfs with entries of every placement until a store fails for lack of space.
    static func fill(_ cache: DiskCache) throws -> [String] {
        var stored: [String] = []
        let sizes = [300, 5_000, 30_000, 150_000]
        for index in 0..<10_000 {
            let key = "fill-\(index)"
            do {
                try cache.store(StressValue.make(key: key, version: 1, byteCount: sizes[index % sizes.count]), forKey: key)
                stored.append(key)
            } catch let error as DiskCacheError where error.errno == ENOSPC {  // SQLITE_FULL arrives as ENOSPC
                return stored
            } catch let error as DiskCacheError {
                if case .writeFailed(_, let call, _) = error, call.contains("full") { return stored }
                throw error
            }
        }
        Issue.record("the disk never filled")
        return stored
    }

    @Test("Each clean-up frees space on a full disk", arguments: Cleanup.allCases)
    func cleanupOnFullDisk(cleanup: Cleanup) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Tmpfs.mountCacheFolder(of: folder, byteCount: 8 << 20)
        defer { Tmpfs.unmount(folder.cacheURL.path) }
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 40))
        let stored = try Self.fill(cache)
        #expect(stored.count > 10)
        let before = FolderFootprint.byteCount(under: folder.cacheURL.path)
        switch cleanup {
        case .removeAll:
            try cache.removeAll()
        case .trimToLimit:
            let small = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1))
            try small.trim()
        case .removeOne:
            // The largest entries first, as a user freeing space would.
            for key in stored.reversed().prefix(8) { try cache.remove(forKey: key) }
        case .removeByPredicate:
            _ = try cache.removeEntries(picking: { key, _ in key.hasPrefix("fill-1") })
        case .removeExpired:
            _ = try cache.removeOlderThan(Date().addingTimeInterval(3600))
        }
        let after = FolderFootprint.byteCount(under: folder.cacheURL.path)
        #expect(after < before, "\(cleanup): \(before) bytes before, \(after) after")
        // Stores work again.
        let value = StressValue.make(key: "after", version: 1, byteCount: 20_000)
        try cache.store(value, forKey: "after")
        #expect(try cache.data(forKey: "after") == value)
        try cache.store(Data("tiny".utf8), forKey: "tiny")
        #expect(try cache.data(forKey: "tiny") == Data("tiny".utf8))
    }

    /// The index's log holds every page it has written when no checkpoint ran yet (a few hundred
    /// small writes): a checkpoint on a full disk then needs room to grow the database file that
    /// the disk does not have, so the clean-up's own commit had nowhere to go.
    @Test(
        "A clean-up that frees no file still works on a disk the cache filled before its index log was ever checkpointed",
        arguments: [Cleanup.removeOne, .trimToLimit])
    func cleanupBeforeAnyCheckpoint(cleanup: Cleanup) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Tmpfs.mountCacheFolder(of: folder, byteCount: 8 << 20)
        defer { Tmpfs.unmount(folder.cacheURL.path) }
        // No rescan: a trim's writes during a slow fill would move where the disk runs out.
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 40, rescanInterval: 86_400))
        // Entry files fill the disk in few writes, then entries inside the index take the last bytes.
        // A few go in first, so that some are there however few bytes the files leave.
        var inline: [String] = []
        for (stage, (byteCount, count)) in [(300, 20), (150_000, 1_000), (300, 20_000)].enumerated() {
            for index in 0..<count {
                let key = "fill-\(stage)-\(index)"
                do {
                    try cache.store(StressValue.make(key: key, version: 1, byteCount: byteCount), forKey: key)
                    if byteCount == 300 { inline.append(key) }
                } catch let error as DiskCacheError where error.errno == ENOSPC {
                    break
                }
            }
        }
        let walByteCount = (try? FileManager.default.attributesOfItem(atPath: folder.cacheURL.path + "/index.sqlite-wal"))?[.size] as? Int
        #expect((walByteCount ?? 0) < 2 << 20, "the log was never checkpointed")
        let last = try #require(inline.last)
        switch cleanup {
        case .trimToLimit:
            try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1)).trim()
            #expect(try cache.data(forKey: last) == nil)
        default:
            try cache.remove(forKey: last)  // an entry inside the index: removing it frees no file
            #expect(try cache.data(forKey: last) == nil)
            let first = try #require(inline.first)
            #expect(try cache.data(forKey: first) == StressValue.make(key: first, version: 1, byteCount: 300))
            // The disk is still full: a store fails, typed, and works once a removal made room.
            do {
                try cache.store(StressValue.make(key: "after", version: 1, byteCount: 20_000), forKey: "after")
            } catch let error as DiskCacheError {
                #expect(error.errno == ENOSPC, "\(error)")
            }
            try cache.remove(forKey: "fill-1-0")
        }
        let value = StressValue.make(key: "after", version: 1, byteCount: 20_000)
        try cache.store(value, forKey: "after")
        #expect(try cache.data(forKey: "after") == value)
    }
}
