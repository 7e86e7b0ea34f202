import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// A disk filled by another file (the cache's own space reserve unused) and a
/// disk the cache filled itself. On c004120 the first made `DiskCache(directory:)` throw and every
/// command fail with "disk I/O error … No space left on device"; on the second, a prune to 4 MiB
/// removed everything.
@Suite("DiskCache: a disk another file filled", .serialized, .enabled(if: Tmpfs.canMount, "needs root and mount rights for a small tmpfs"))
struct DiskCacheForeignFullDiskTests {
    static let values = (0..<40).map { index in
        (key: "k\(index)", value: StressValue.make(key: "k\(index)", version: 1, byteCount: [300, 5_000, 30_000, 150_000][index % 4]))
    }

    /// Writes a file of zeros at `path` until the file system is full.
    static func fillDisk(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        let byte: [UInt8] = [0]
        while byte.withUnsafeBytes({ write(descriptor, $0.baseAddress, 1) }) > 0 {}
    }

    @Test("It opens, reads, lists, removes, trims to its limit and clears; a store fails typed and works once there is room")
    func foreignFiller() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let disk = folder.path + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try Tmpfs.mount(at: disk, byteCount: 8 << 20)
        defer { Tmpfs.unmount(disk) }
        let cacheURL = URL(filePath: disk + "/cache")
        do {
            let cache = try DiskCache(directory: cacheURL, configuration: .init(sizeLimit: 4 << 20))
            for (key, value) in Self.values { try cache.store(value, forKey: key) }
        }
        Self.fillDisk(disk + "/filler")

        let cache = try DiskCache(directory: cacheURL, configuration: .init(sizeLimit: 4 << 20))
        let kept = try Set(cache.keys())
        #expect(!kept.isEmpty)
        for (key, value) in Self.values where kept.contains(key) { #expect(try cache.data(forKey: key) == value, "\(key)") }
        #expect(try cache.entryInfos().count == kept.count)
        #expect(try cache.entryCount == kept.count)
        // A store has no room: a typed error, and nothing lost.
        #expect {
            try cache.store(StressValue.make(key: "big", version: 1, byteCount: 150_000), forKey: "big")
        } throws: { error in
            (error as? DiskCacheError)?.errno == ENOSPC
        }
        for (key, value) in Self.values where kept.contains(key) { #expect(try cache.data(forKey: key) == value, "\(key)") }
        // Clean-ups work and free space.
        let removed = try #require(Self.values.last { kept.contains($0.key) && $0.value.count > 100_000 })
        try cache.remove(forKey: removed.key)
        #expect(try cache.data(forKey: removed.key) == nil)
        let smaller = try DiskCache(directory: cacheURL, configuration: .init(sizeLimit: 1 << 20))
        try smaller.trim()
        #expect(try smaller.entryCount > 0, "a trim to 1 MiB on a full disk emptied the cache")
        #expect(smaller.estimatedByteCount() <= smaller.configuration.lowWaterMark)
        try cache.removeAll()
        #expect(try cache.entryCount == 0)
        // Room again: stores work.
        try FileManager.default.removeItem(atPath: disk + "/filler")
        try cache.store(Data("again".utf8), forKey: "again")
        try cache.store(StressValue.make(key: "big", version: 1, byteCount: 150_000), forKey: "big")
        #expect(try cache.data(forKey: "again") == Data("again".utf8))
        #expect(try cache.data(forKey: "big") == StressValue.make(key: "big", version: 1, byteCount: 150_000))
    }

    @Test("A disk the cache filled itself: a trim to a smaller limit keeps the limit's worth, not nothing")
    func selfFilledTrim() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Tmpfs.mountCacheFolder(of: folder, byteCount: 8 << 20)
        defer { Tmpfs.unmount(folder.cacheURL.path) }
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 40))
        let stored = try DiskCacheFullDiskTests.fill(cache)
        let small = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 4 << 20))
        try small.trim()
        #expect(try small.entryCount > 0, "a trim to 4 MiB on a full disk emptied the cache")
        #expect(small.estimatedByteCount() <= small.configuration.lowWaterMark)
        #expect(small.estimatedByteCount() >= small.configuration.lowWaterMark / 2)
        let newest = try #require(stored.last)
        #expect(try small.data(forKey: newest) != nil)
    }
}
