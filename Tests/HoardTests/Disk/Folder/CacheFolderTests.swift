import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// The cache folder on its own: it marks a new folder, knows a cache, refuses anybody else's
/// folder, and opens its `tmp` only when it is its own.
@Suite("CacheFolder")
struct CacheFolderTests {
    @Test func aNewFolderIsMarkedAndKnownAfterwards() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/new/cache"
        #expect(try CacheFolder.prepare(path, logger: LogRecorder().logger()).state == .current)
        let marker = try String(contentsOfFile: path + "/" + CacheFolder.markerFileName, encoding: .utf8)
        #expect(marker == "Hoard cache\nformat \(CacheFolder.formatVersion)\n")
        #expect(FileManager.default.fileExists(atPath: path + "/" + CacheFolder.cacheDirectoryTagFileName))
        #expect(try CacheFolder.prepare(path, logger: LogRecorder().logger()).state == .current)
    }

    @Test func aFolderHoldingSomethingElseIsRefusedAndLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        FileManager.default.createFile(atPath: directory.path + "/notes.txt", contents: Data("mine".utf8))
        #expect(throws: DiskCacheError.notACache(path: directory.path.replacing(/\/$/, with: ""))) {
            try CacheFolder.prepare(directory.path.replacing(/\/$/, with: ""), logger: LogRecorder().logger())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notes.txt"])
    }

    @Test func aTemporaryFolderThatIsALinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = directory.path + "cache"
        _ = try CacheFolder.prepare(root, logger: LogRecorder().logger())
        let folder = CacheFolder(rootPath: root)
        try FileManager.default.createSymbolicLink(atPath: folder.temporaryDirectoryPath, withDestinationPath: directory.path)
        #expect(throws: DiskCacheError.foreignItem(path: folder.temporaryDirectoryPath, reason: "a symbolic link")) {
            _ = try folder.openTemporaryDirectory(creating: true)
        }
    }
}
