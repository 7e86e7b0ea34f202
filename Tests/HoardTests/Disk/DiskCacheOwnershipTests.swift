import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk tier touches only what it made: it refuses folders that are not caches, never
/// removes a folder, never follows a symbolic link, and removes only its own temporary files.
@Suite("DiskCache ownership")
struct DiskCacheOwnershipTests {
    @Test("A new folder is created with mode 0700 and marked with its format and CACHEDIR.TAG")
    func newFolderIsMarked() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = folder.url.appending(path: "parent/cache", directoryHint: .isDirectory)
        _ = try DiskCache(directory: root)
        for path in [root, root.deletingLastPathComponent()] {
            let permissions = try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int
            #expect(permissions == 0o700, "\(path.path)")
        }
        let marker = try String(contentsOf: root.appending(path: DiskCache.markerFileName), encoding: .utf8)
        #expect(marker == "Hoard cache\nformat 2\n")
        let tag = try String(contentsOf: root.appending(path: "CACHEDIR.TAG"), encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    @Test(
        "A folder holding anything else is refused, and left as it was",
        arguments: [["notes.txt"], ["tmp/project/notes.txt"], ["ab/notes.txt", "notes.txt"], [".hidden"]])
    func refusesUnmarkedFolders(userFiles: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for file in userFiles { try write("user data \(file)", to: folder.cacheURL.appending(path: file)) }
        let before = try FolderSnapshot(of: folder.cacheURL)
        let error = #expect(throws: DiskCacheError.self) { try DiskCache(directory: folder.cacheURL) }
        #expect(error == .notACache(path: folder.cacheURL.path(percentEncoded: false).trimmingSlash))
        #expect(error?.description.contains("is not a Hoard cache and is not empty; refusing to use it") == true)
        #expect(try FolderSnapshot(of: folder.cacheURL) == before)
    }

    @Test("A cache made before folders were marked is adopted, with its entries")
    func adoptsUnmarkedCache() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data("kept".utf8), forKey: "k")
        for name in [DiskCache.markerFileName, "CACHEDIR.TAG"] {
            try FileManager.default.removeItem(at: fixture.folder.cacheURL.appending(path: name))
        }
        let reopened = try DiskCache(directory: fixture.folder.cacheURL, configuration: fixture.configuration())
        #expect(try reopened.data(forKey: "k") == Data("kept".utf8))
        #expect(FileManager.default.fileExists(atPath: fixture.folder.cacheURL.appending(path: ".hoard-cache").path))
    }

    @Test("Another format's marker, or a marker that is not one, is refused")
    func refusesOtherMarkers() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let marker = folder.cacheURL.appending(path: DiskCache.markerFileName)
        try write("Hoard cache\nformat 99\n", to: marker)
        #expect(throws: DiskCacheError.unsupportedFormat(path: folder.cacheURL.path.trimmingSlash, marker: "Hoard cache, format 99")) {
            try DiskCache(directory: folder.cacheURL)
        }
        try write("something else", to: marker)
        #expect(throws: DiskCacheError.foreignItem(path: marker.path, reason: "not a Hoard marker file")) {
            try DiskCache(directory: folder.cacheURL)
        }
    }

    @Test("A folder other users may write is used, with a warning")
    func warnsWhenWritableByOthers() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.cacheURL, withIntermediateDirectories: true)
        chmod(folder.cacheURL.path, 0o777)
        let log = LogRecorder()
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(logger: log.logger()))
        try cache.store(Data("x".utf8), forKey: "x")
        let warnings = log.lines(containing: "writable by other users")
        #expect(warnings.count == 1 && warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["mode"] == "777")
    }

    @Test("A tmp that is a symbolic link is an error for every write and clean-up, and its target is untouched")
    func symbolicLinkTemporaryFolder() throws {
        let fixture = try DiskCacheFixture(sizeLimit: 4096)
        defer { fixture.remove() }
        try fixture.cache.store(Data("before".utf8), forKey: "kept")
        let victim = fixture.folder.url.appending(path: "victim")
        try write("x", to: victim.appending(path: "a.txt"))
        try write("y", to: victim.appending(path: "sub/b.txt"))
        try write("abandoned-looking", to: victim.appending(path: "123-abc.tmp"))
        try FileManager.default.removeItem(atPath: fixture.cache.temporaryDirectoryPath)
        try FileManager.default.createSymbolicLink(atPath: fixture.cache.temporaryDirectoryPath, withDestinationPath: victim.path)
        let before = try FolderSnapshot(of: victim)
        let expected = DiskCacheError.foreignItem(path: fixture.cache.temporaryDirectoryPath, reason: "a symbolic link")

        #expect(throws: expected) { try fixture.cache.trim() }
        #expect(throws: expected) { try fixture.cache.removeAll() }
        #expect(throws: expected) { try fixture.cache.store(Data(count: 8192), forKey: "new") }
        #expect(try FolderSnapshot(of: victim) == before)
        #expect(try fixture.cache.data(forKey: "kept") == nil, "removeAll removed the entries, not the link's target")
    }

    @Test("Clean-up removes only abandoned files with the cache's temporary names")
    func removesOnlyOwnTemporaryFiles() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        try fixture.cache.store(Data("v".utf8), forKey: "k")  // creates tmp
        let tmp = URL(filePath: fixture.cache.temporaryDirectoryPath)
        let victim = fixture.folder.url.appending(path: "victim")
        try write("victim", to: victim.appending(path: "target.txt"))
        try write("notes", to: tmp.appending(path: "notes.txt"))
        try write("project", to: tmp.appending(path: "project/readme.md"))
        try write("a folder with our name", to: tmp.appending(path: "456-def.tmp/inside.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: tmp.appending(path: "789-ghi.tmp").path, withDestinationPath: victim.appending(path: "target.txt").path)
        try write("abandoned", to: tmp.appending(path: "123-abc.tmp"))
        let ownFile = "123-abc.tmp"
        // What the user made: the victim folder, and everything in tmp but the abandoned file.
        let isUsers = { (path: String) in
            path.hasPrefix("victim") || path.hasPrefix("cache/tmp/") && !path.hasSuffix(ownFile)
        }
        let before = try FolderSnapshot(of: fixture.folder.url).filter { !isUsers($0) }

        try fixture.cache.trim()
        #expect(!FileManager.default.fileExists(atPath: tmp.appending(path: ownFile).path))
        #expect(try FolderSnapshot(of: fixture.folder.url).filter { !isUsers($0) } == before)
        try fixture.cache.removeAll()
        #expect(try FolderSnapshot(of: fixture.folder.url).filter { !isUsers($0) } == before)
        #expect(try fixture.cache.data(forKey: "k") == nil)
    }

    @Test("Folders and links where entries could be are never removed or followed")
    func entryLikeFoldersAndLinks() throws {
        let fixture = try DiskCacheFixture(sizeLimit: 4096, rescanInterval: 0)
        defer { fixture.remove() }
        let root = fixture.folder.cacheURL
        let hexName = String(repeating: "ab", count: 32)
        let victim = fixture.folder.url.appending(path: "victim")
        try write("victim entry-named file", to: victim.appending(path: hexName))
        try write("inside a folder with an entry name", to: root.appending(path: "ab/\(hexName)/user.txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appending(path: "cd").path, withDestinationPath: victim.path)
        let outside = { (path: String) in path.hasPrefix("victim") || path.hasPrefix("cache/ab/\(hexName)") || path == "cache/cd" }
        let before = try FolderSnapshot(of: fixture.folder.url).filter { !outside($0) }

        for index in 0..<8 { try fixture.cache.store(Data(count: 1024), forKey: "fill \(index)") }  // trims
        try fixture.cache.trim()
        _ = try fixture.cache.removeOlderThan(Date.distantFuture)
        _ = try fixture.cache.entryInfos()
        try fixture.cache.removeAll()
        let after = try FolderSnapshot(of: fixture.folder.url).filter { !outside($0) }
        #expect(after == before)
    }

    @Test("The disk tier's listing reads names of every length from 1 to 255 bytes")
    func listsEveryNameLength() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let expected = (1...255).map { (length: Int) -> String in
            let bytes = (0..<length).map { (offset: Int) -> UInt8 in UInt8(0x61 + (offset + length) % 26) }
            return String(decoding: bytes, as: UTF8.self)
        }
        for name in expected { try Data().write(to: folder.url.appending(path: name)) }
        let listed = try FileSystem.contentsOfDirectory(folder.path).get()
        #expect(listed.sorted() == expected.sorted())
        // The same names in a shard folder and in tmp, through the cache's own scans.
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let shard = fixture.folder.cacheURL.appending(path: "0a")
        for name in expected {
            try write("", to: shard.appending(path: name))
            try write("", to: URL(filePath: fixture.cache.temporaryDirectoryPath).appending(path: name))
        }
        #expect(try fixture.cache.entryInfos().isEmpty)
        try fixture.cache.trim()
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard.path).count == 255)
    }

    @Test("A location that is not a file URL is refused")
    func refusesNonFileURL() throws {
        let url = try #require(URL(string: "https://example.com/cache"))
        #expect(throws: DiskCacheError.notAFileURL("https://example.com/cache")) { try DiskCache(directory: url) }
    }

    private func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}

extension String {
    fileprivate var trimmingSlash: String { count > 1 && hasSuffix("/") ? String(dropLast()) : self }
}
