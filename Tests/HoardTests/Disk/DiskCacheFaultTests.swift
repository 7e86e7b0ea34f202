import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("DiskCache faults")
struct DiskCacheFaultTests {
    /// A damaged entry file must read as a miss, be removed and logged, and leave the cache working.
    private func expectMissRemovedAndLogged(
        _ fixture: DiskCacheFixture, key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = try fixture.entryPath(key)
        #expect(try fixture.cache.data(forKey: key) == nil, sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: path), "damaged file left in place", sourceLocation: sourceLocation)
        let warnings = fixture.log.lines(containing: "Removed damaged disk cache entry")
        #expect(warnings.count == 1, sourceLocation: sourceLocation)
        #expect(warnings.first?.level == .warning, sourceLocation: sourceLocation)
        #expect(warnings.first?.metadata["path"] == .string(path), sourceLocation: sourceLocation)
        // The cache keeps working for this key and the others.
        try fixture.cache.store(Data("fresh".utf8), forKey: key)
        #expect(try fixture.cache.data(forKey: key) == Data("fresh".utf8), sourceLocation: sourceLocation)
        #expect(try fixture.cache.data(forKey: "bystander") == Data("intact".utf8), sourceLocation: sourceLocation)
    }

    private func makeFixture(value: Data, function: String = #function) throws -> DiskCacheFixture {
        let fixture = try DiskCacheFixture(function: function)
        try fixture.cache.store(value, forKey: "victim")
        try fixture.cache.store(Data("intact".utf8), forKey: "bystander")
        return fixture
    }

    static let value = StressValue.make(key: "victim", version: 1, byteCount: 20_000)
    /// Offsets in the magic, the version, flags, key length, dates, lengths, checksums, the key,
    /// the payload's first byte, the middle of the payload and its last byte.
    static let flipOffsets = [0, 7, 8, 10, 12, 16, 24, 32, 40, 44, 48, 53, 54, 10_000, fileLength - 1]
    /// The header (48 bytes), the key "victim" and the value.
    static let fileLength = 48 + 6 + value.count

    @Test("A flipped byte anywhere is a miss", arguments: flipOffsets)
    func flippedByte(offset: Int) throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        var bytes = try Data(contentsOf: URL(filePath: try fixture.entryPath("victim")))
        try #require(offset < bytes.count)
        bytes[offset] ^= 0x01
        try bytes.write(to: URL(filePath: try fixture.entryPath("victim")))
        try expectMissRemovedAndLogged(fixture, key: "victim")
    }

    @Test(
        "A file truncated anywhere (or emptied) is a miss", arguments: [0, 1, 8, 47, 48, 53, 54, 4096, fileLength - 1])
    func truncated(length: Int) throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        let path = try fixture.entryPath("victim")
        #expect(truncate(path, off_t(length)) == 0)
        try expectMissRemovedAndLogged(fixture, key: "victim")
    }

    @Test("Trailing bytes after the payload are a miss")
    func extended() throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        let handle = try FileHandle(forWritingTo: URL(filePath: try fixture.entryPath("victim")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        try expectMissRemovedAndLogged(fixture, key: "victim")
    }

    @Test("An entry replaced by a directory (with files in it) is a miss, and the folder is never removed")
    func replacedByDirectory() throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        let path = try fixture.entryPath("victim")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path + "/inner", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(filePath: path + "/inner/file"))
        #expect(try fixture.cache.data(forKey: "victim") == nil)
        let warnings = fixture.log.lines(containing: "Cannot remove damaged or expired disk cache entry")
        #expect(warnings.count == 1 && warnings.first?.metadata["path"] == .string(path))
        // Not the cache's: a store refuses to replace it, a removal and a clear leave it.
        #expect(throws: DiskCacheError.writeFailed(path: path, call: "renameat", errno: EISDIR)) {
            try fixture.cache.store(Data("fresh".utf8), forKey: "victim")
        }
        try fixture.cache.remove(forKey: "victim")
        try fixture.cache.removeAll()
        #expect(try Data(contentsOf: URL(filePath: path + "/inner/file")) == Data("x".utf8))
        #expect(try fixture.cache.data(forKey: "bystander") == nil)
    }

    @Test("An entry replaced by a symbolic link is a miss, and the target is untouched")
    func replacedBySymbolicLink() throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        let target = fixture.folder.url.appending(path: "outside")
        try Data("secret".utf8).write(to: target)
        let path = try fixture.entryPath("victim")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(
            atPath: path, withDestinationPath: target.path(percentEncoded: false))
        try expectMissRemovedAndLogged(fixture, key: "victim")
        #expect(try Data(contentsOf: target) == Data("secret".utf8))
    }

    @Test("A valid entry of another key at this key's path (a hash collision) is a miss")
    func collision() throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        try fixture.cache.store(Data("other".utf8), forKey: "other")
        try FileManager.default.removeItem(atPath: try fixture.entryPath("victim"))
        try FileManager.default.copyItem(atPath: try fixture.entryPath("other"), toPath: try fixture.entryPath("victim"))
        try expectMissRemovedAndLogged(fixture, key: "victim")
        #expect(try fixture.cache.data(forKey: "other") == Data("other".utf8))
    }

    @Test("A misplaced entry file (unknown to the index) is left out of keys(), and trim() removes it")
    func misplacedInListing() throws {
        let fixture = try makeFixture(value: Self.value)
        defer { fixture.remove() }
        let misplaced = try fixture.entryPath("elsewhere")
        try FileManager.default.createDirectory(
            atPath: String(misplaced.prefix(upTo: misplaced.lastIndex(of: "/") ?? misplaced.endIndex)),
            withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try fixture.entryPath("bystander"), toPath: misplaced)
        #expect(Set(try fixture.cache.keys()) == ["victim", "bystander"])
        #expect(try fixture.cache.data(forKey: "elsewhere") == nil)
        try fixture.cache.trim()
        #expect(!FileManager.default.fileExists(atPath: try fixture.entryPath("elsewhere")))
        #expect(Set(try fixture.cache.keys()) == ["victim", "bystander"])
        #expect(fixture.log.lines(containing: "Removed damaged").count == 1)
    }

    @Test("Random damage never returns wrong bytes")
    func randomDamage() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let key = "key \(round % 7)"
            let value = StressValue.make(
                key: key, version: UInt64(round), byteCount: Int.random(in: 0...3000, using: &generator))
            try fixture.cache.store(value, forKey: key)
            let url = URL(filePath: try fixture.entryPath(key))
            var bytes = try Data(contentsOf: url)
            switch round % 3 {
            case 0:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            case 1: bytes = bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))
            default:
                bytes.append(
                    contentsOf: (0..<Int.random(in: 1...9, using: &generator)).map { _ in UInt8.random(in: 0...255) })
            }
            try bytes.write(to: url)
            #expect(try fixture.cache.data(forKey: key) == nil)
        }
        #expect(fixture.log.lines(containing: "Removed damaged").count == 200)
        #expect(fixture.files.isEmpty)
    }

    @Test(
        "A full or read-only file system makes store throw a typed error; stored entries stay readable",
        .enabled(if: Tmpfs.canMakeUnwritableFolder, "needs root with mount(2) for a tmpfs; mounting failed here"))
    func unwritable() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let mountPoint = folder.url.appending(path: "mnt").path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        if Tmpfs.isRoot { try Tmpfs.mount(at: mountPoint, byteCount: 1 << 20) }
        defer { if Tmpfs.isRoot { Tmpfs.unmount(mountPoint) } }
        var folders: [String] = []
        defer { for folder in folders { chmod(folder, 0o755) } }
        let cache = try DiskCache(directory: URL(filePath: mountPoint + "/cache"))
        let kept = StressValue.make(key: "kept", version: 1, byteCount: 100_000)
        try cache.store(kept, forKey: "kept")

        if Tmpfs.isRoot {
            // Fill the 1 MiB file system until a write fails with ENOSPC.
            var failure: DiskCacheError?
            for index in 0..<40 {
                do {
                    try cache.store(Data(repeating: UInt8(index), count: 100_000), forKey: "filler \(index)")
                } catch let error as DiskCacheError {
                    failure = error
                    break
                }
            }
            let error = try #require(failure, "a 1 MiB tmpfs never filled up")
            guard case .writeFailed(let path, let call, let code) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(code == ENOSPC && !call.isEmpty && path.hasPrefix(mountPoint + "/cache/"), "\(error)")
            #expect(error.description.contains(mountPoint) && error.description.contains("errno \(ENOSPC)"))
            #expect(try cache.data(forKey: "kept") == kept)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/cache/tmp").isEmpty)
            // Space comes back: the cache works again.
            for index in 0..<40 { try cache.remove(forKey: "filler \(index)") }
            let after = Data(repeating: 9, count: 100_000)
            try cache.store(after, forKey: "after")
            #expect(try cache.data(forKey: "after") == after)
            #expect(try cache.data(forKey: "kept") == kept)
            cache.index.closeIdleConnections()  // a file open for writing would keep the remount busy
            try Tmpfs.remountReadOnly(mountPoint)
        } else {
            // Not root: permission bits are enough (restored so that the folder can be removed).
            folders =
                try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/cache")
                .map { mountPoint + "/cache/" + $0 } + [mountPoint + "/cache"]
            for folder in folders { chmod(folder, 0o555) }
            cache.index.closeIdleConnections()  // new connections find the folder read-only
        }
        let error = try #require(throws: DiskCacheError.self) {
            try cache.store(Data("new".utf8), forKey: "new")
        }
        #expect([EROFS, EACCES].contains(error.errno) && error.path?.hasPrefix(mountPoint) == true, "\(error)")
        #expect(try cache.data(forKey: "kept") == kept)
        #expect(try cache.keys().contains("kept"))
    }
}
