import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// A link where a shard folder or a segment should be is never followed,
/// never written through, and does not stop stores.
@Suite("DiskCache: links and foreign files in the folder", .serialized)
struct DiskCacheLinkTests {
    @Test("A shard folder replaced by a link to an outside folder: store and remove never reach it")
    func shardLink() throws {
        let fixture = try DiskCacheFixture()  // every entry in a file of its own
        defer { fixture.remove() }
        let outside = fixture.folder.url.appending(path: "outside").path
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let key = "victim"
        let location = try fixture.cache.location(forKey: key)
        try fixture.cache.store(Data("first".utf8), forKey: key)
        // The shard folder becomes a link to `outside`, which holds a file with the entry's name.
        try FileManager.default.removeItem(atPath: location.shardPath)
        try FileManager.default.createSymbolicLink(atPath: location.shardPath, withDestinationPath: outside)
        let bait = outside + "/" + location.fileName
        try Data("not the cache's".utf8).write(to: URL(fileURLWithPath: bait))
        do {
            try fixture.cache.store(Data("second".utf8), forKey: key)
        } catch let error as DiskCacheError {
            guard case .foreignItem = error else { throw error }
        }
        #expect(try fixture.cache.data(forKey: key) == nil || (try fixture.cache.data(forKey: key)) == Data("second".utf8))
        try? fixture.cache.remove(forKey: key)
        try fixture.cache.trim()
        try fixture.cache.removeAll()
        #expect(try Data(contentsOf: URL(fileURLWithPath: bait)) == Data("not the cache's".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == [location.fileName])
        // Other shards work as ever.
        try fixture.cache.store(Data("other".utf8), forKey: "other")
        #expect(try fixture.cache.data(forKey: "other") == Data("other".utf8))
    }

    enum Replacement: String, CaseIterable, CustomTestStringConvertible {
        case symbolicLink, folder, hardLink
        var testDescription: String { rawValue }
    }

    @Test("The newest segment replaced: stores of 2 to 68 KiB all succeed and nothing foreign is written", arguments: Replacement.allCases)
    func replacedSegment(replacement: Replacement) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let outside = folder.url.appending(path: "outside-file").path
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside))
        func openCache() throws -> DiskCache { try DiskCache(directory: folder.cacheURL) }
        var cache = try openCache()
        try cache.store(StressValue.make(key: "first", version: 1, byteCount: 10_000), forKey: "first")
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.cacheURL.path).filter { $0.hasPrefix("segment-") }
                .max())
        let segmentPath = folder.cacheURL.path + "/" + segment
        switch replacement {
        case .symbolicLink:
            try FileManager.default.removeItem(atPath: segmentPath)
            try FileManager.default.createSymbolicLink(atPath: segmentPath, withDestinationPath: outside)
        case .folder:
            try FileManager.default.removeItem(atPath: segmentPath)
            try FileManager.default.createDirectory(atPath: segmentPath, withIntermediateDirectories: false)
        case .hardLink:
            try FileManager.default.removeItem(atPath: outside)
            #expect(link(segmentPath, outside) == 0)
        }
        let outsideBefore = try? Data(contentsOf: URL(fileURLWithPath: outside))
        // In this process and in a later one.
        for pass in 0..<2 {
            if pass == 1 { cache = try openCache() }
            var failures: [String] = []
            for (index, size) in stride(from: 2_048, through: 68 * 1024 - 200, by: 5_000).enumerated() {
                let key = "key-\(pass)-\(index)"
                let value = StressValue.make(key: key, version: 1, byteCount: size)
                do {
                    try cache.store(value, forKey: key)
                    if try cache.data(forKey: key) != value { failures.append("\(key): not read back") }
                } catch {
                    failures.append("\(key) (\(size) bytes): \(error)")
                }
            }
            #expect(failures.isEmpty, "pass \(pass): \(failures.count) failed: \(failures.prefix(3))")
        }
        #expect((try? Data(contentsOf: URL(fileURLWithPath: outside))) == outsideBefore, "the outside file changed")
        try cache.trim()
        if replacement == .folder {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: segmentPath, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
        #expect((try? Data(contentsOf: URL(fileURLWithPath: outside))) == outsideBefore)
    }
}
