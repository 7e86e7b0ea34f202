import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 28, item 5: on a disk the cache itself filled, every clean-up frees space, and stores
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
            } catch let error as DiskCacheError where error.errno == ENOSPC || error.errno == 13 /* SQLITE_FULL */ {
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
        try FileManager.default.createDirectory(at: folder.cacheURL, withIntermediateDirectories: true)
        try Tmpfs.mount(at: folder.cacheURL.path, byteCount: 8 << 20)
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
}
