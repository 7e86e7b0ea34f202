import Foundation
import HoardSystem
import Testing

@testable import HoardCore

/// The file store on its own: a file becomes visible only with its row, a temporary file a live
/// writer holds is never taken, removal goes with the row, and damage is read as a miss.
@Suite("FileStore")
struct FileStoreTests {
    private let key = "large/record"
    private let byteCount = 200_000

    @Test func aWrittenFileIsVisibleOnlyOnceItsRowIs() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let payload = DiskParts.payload(key, byteCount: byteCount)
        let hash = try EntryFiles.keyHash(key)
        let fileName = SHA256.hex(hash)
        let (temporary, header) = try parts.files.writeTemporary(
            header: parts.header(key, byteCount: byteCount), payload: payload, now: parts.clock.now)
        defer {
            FileSystem.close(temporary.descriptor)
            FileSystem.close(temporary.directory)
        }
        // Written in full, locked, and not yet under the entry's name.
        #expect(parts.files.status(of: fileName) == nil)
        #expect(try parts.files.removeAbandonedTemporaryFiles(now: parts.clock.now) == 0)
        #expect(FileManager.default.fileExists(atPath: temporary.path))
        // The rename and the row in one transaction.
        let placed = try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                try parts.files.place(temporary, header: header, hash: hash, now: parts.clock.now, on: connection)
            }
        }
        #expect(placed)
        #expect(parts.files.status(of: fileName)?.byteCount == header.fileByteCount)
        #expect(try parts.placement(key) == .file)
        #expect(try parts.read(key) == payload)
        let usage = try parts.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
        #expect(usage.fileBytes == header.fileByteCount)
    }

    @Test func anAbandonedTemporaryFileIsRemovedAndALiveOneKept() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let (live, _) = try parts.files.writeTemporary(
            header: parts.header(key, byteCount: 10), payload: Data(count: 10), now: parts.clock.now)
        let (abandoned, _) = try parts.files.writeTemporary(
            header: parts.header(key, byteCount: 10), payload: Data(count: 10), now: parts.clock.now)
        FileSystem.close(abandoned.descriptor)  // its writer died: the lock goes with it
        FileSystem.close(abandoned.directory)
        #expect(try parts.files.removeAbandonedTemporaryFiles(now: parts.clock.now) == 1)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        FileSystem.close(live.descriptor)
        FileSystem.close(live.directory)
    }

    @Test func removingAnEntryTakesItsFileAndItsBytes() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try parts.store(key, DiskParts.payload(key, byteCount: byteCount))
        let hash = try EntryFiles.keyHash(key)
        let removed = try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction { try parts.files.removeEntry(hash, on: connection) }
        }
        #expect(removed)
        #expect(parts.files.status(of: SHA256.hex(hash)) == nil)
        #expect(try parts.placement(key) == nil)
        let usage = try parts.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
        #expect(usage.fileBytes == 0)
    }

    @Test func aDamagedFileIsAMissAndIsRemoved() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try parts.store(key, DiskParts.payload(key, byteCount: byteCount))
        let fileName = try EntryFiles.fileName(forKey: key)
        let handle = try FileHandle(forUpdating: URL(filePath: parts.files.path(of: fileName)))
        try handle.seek(toOffset: 100_000)
        try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
        try handle.close()
        let lookup = try parts.files.read(named: fileName, expectedKey: key, options: [.payload], now: parts.clock.now)
        guard case .damaged = lookup else {
            Issue.record("a damaged file read as \(lookup)")
            return
        }
        #expect(parts.files.status(of: fileName) == nil)
        #expect(parts.log.all.contains { $0.message.contains("Removed damaged disk cache entry") })
    }

    @Test func aLinkedShardIsRefusedAndNothingOutsideIsTouched() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let fileName = try EntryFiles.fileName(forKey: key)
        let shard = parts.folder.rootPath + "/" + EntryFiles.shardName(of: fileName)
        let outside = parts.directory.url.appending(path: "outside").path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: shard, withDestinationPath: outside)
        #expect(throws: DiskCacheError.self) { try parts.store(key, DiskParts.payload(key, byteCount: byteCount)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(try parts.placement(key) == nil)
    }
}
