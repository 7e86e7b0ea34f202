import Foundation
import Testing

@testable import HoardCore

/// The reconciler on its own: what a crash between a file's rename and its row leaves is indexed,
/// rows whose files are gone go, stale copies go, and a damaged index is rebuilt from the files.
@Suite("Reconciler")
struct ReconcilerTests {
    private let byteCount = 100_000

    @Test func aFileWithoutItsRowIsIndexedAndARowWithoutItsFileRemoved() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try parts.store("kept", DiskParts.payload("kept", byteCount: byteCount))
        try parts.store("gone", DiskParts.payload("gone", byteCount: byteCount))
        // A crash after the rename, before the commit: the file is there, its row is not.
        let keptHash = try EntryFiles.keyHash("kept")
        try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                try EntryTable(connection: connection).delete(keptHash)
            }
        }
        // A file removed behind the cache's back: the row is there, its file is not.
        try FileManager.default.removeItem(atPath: parts.files.path(of: try EntryFiles.fileName(forKey: "gone")))
        #expect(try parts.reconciler.reconcile() == 1)
        #expect(try parts.placement("kept") == .file)
        #expect(try parts.read("kept") == DiskParts.payload("kept", byteCount: byteCount))
        #expect(try parts.placement("gone") == nil)
        let usage = try parts.index.withDatabase(writing: false) { try UsageTable(connection: $0).current() }
        #expect(usage.fileBytes == 48 + 4 + byteCount)
    }

    @Test func aStaleFileCopyOfAnInlineEntryIsRemoved() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try parts.store("k", DiskParts.payload("k", byteCount: byteCount))
        let path = parts.files.path(of: try EntryFiles.fileName(forKey: "k"))
        let copy = try Data(contentsOf: URL(filePath: path))
        try parts.store("k", Data("small".utf8))  // inline now; its file went
        #expect(!FileManager.default.fileExists(atPath: path))
        try copy.write(to: URL(filePath: path))  // a copy restored from a backup
        #expect(try parts.reconciler.reconcile() == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try parts.read("k") == Data("small".utf8))
    }

    @Test func theFilesItIndexesTakeTheirPlacesInTheOrderOfUseByModificationDate() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        let keys = (0..<6).map { "file\($0)" }
        for key in keys { try parts.store(key, DiskParts.payload(key, byteCount: byteCount)) }
        // Written last, used longest ago: the reverse of the order they were stored in.
        for (position, key) in keys.enumerated() {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000 - Double(position) * 1_000)],
                ofItemAtPath: parts.files.path(of: try EntryFiles.fileName(forKey: key)))
        }
        let hashes = try keys.map { try EntryFiles.keyHash($0) }
        try parts.index.withDatabase(writing: true) { connection in
            try connection.writeTransaction {
                for hash in hashes {
                    try EntryTable(connection: connection).delete(hash)
                }
            }
        }
        #expect(try parts.reconciler.reconcile() == keys.count)
        let order = try parts.index.withDatabase(writing: false) {
            try EntryTable(connection: $0).leastRecentlyUsed(atLeast: .max, rowOverhead: 0, limit: .max).map(\.hash)
        }
        #expect(order == hashes.reversed())
        for key in keys { #expect(try parts.read(key) == DiskParts.payload(key, byteCount: byteCount)) }
    }

    @Test func aDamagedIndexIsRebuiltFromTheEntryFiles() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try parts.store("file", DiskParts.payload("file", byteCount: byteCount))
        try parts.store("inline", Data("x".utf8))
        try parts.index.withDatabase(writing: true) { try $0.execute("DROP TABLE entries") }
        // The next use finds the table gone, rebuilds, and runs again on the new index.
        #expect(try parts.read("file") == DiskParts.payload("file", byteCount: byteCount))
        #expect(try parts.read("inline") == nil)  // kept inside the damaged index: lost, not wrong
        #expect(parts.log.all.contains { $0.message.contains("index is damaged") })
    }
}
