import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// A cache folder reached through symbolic links (systemd's `CacheDirectory=`
/// with `DynamicUser=yes`, a home or `XDG_CACHE_HOME` behind a link, macOS's `/tmp`) opens at its
/// real path. On c004120 the index failed to open ("unable to open database file") after the
/// marker was written through the link.
@Suite("DiskCache: a folder reached through a link")
struct DiskCacheLinkedFolderTests {
    /// systemd's layout: `/var/cache/private` (mode 0700) holds the folder, and `/var/cache/NAME`
    /// is a relative link to `private/NAME`.
    @Test("systemd's DynamicUser layout: the link opens the cache in private/NAME")
    func systemdLayout() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let privateFolder = base.url.appending(path: "private").path
        try FileManager.default.createDirectory(atPath: privateFolder + "/hoard", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: privateFolder)
        let link = base.url.appending(path: "hoard").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "private/hoard")

        let cache = try DiskCache(directory: URL(filePath: link))
        let values = [("small", 300), ("segment", 20_000), ("file", 200_000)].map { (key: $0.0, value: Data(repeating: UInt8($0.1 % 251), count: $0.1)) }
        for (key, value) in values { try cache.store(value, forKey: key) }
        for (key, value) in values { #expect(try cache.data(forKey: key) == value) }
        // Everything is in the real folder; the link is still a link.
        let real = privateFolder + "/hoard"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "private/hoard")
        for name in [".hoard-cache", "CACHEDIR.TAG", "index.sqlite"] {
            #expect(FileManager.default.fileExists(atPath: real + "/" + name), "\(name)")
        }
        // The same cache through its real path, as another process would open it.
        let direct = try DiskCache(directory: URL(filePath: real))
        for (key, value) in values { #expect(try direct.data(forKey: key) == value) }
        try cache.trim()
        #expect(try cache.entryCount == values.count)
    }

    @Test("A parent behind a link (a home folder, XDG_CACHE_HOME), the folder made on the way")
    func linkedParent() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let realHome = base.url.appending(path: "data/home").path
        try FileManager.default.createDirectory(atPath: realHome, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base.url.appending(path: "home").path, withDestinationPath: realHome)
        let cache = try DiskCache(directory: base.url.appending(path: "home/.cache/hoard/default"))
        try cache.store(Data("through the link".utf8), forKey: "k")
        #expect(try cache.data(forKey: "k") == Data("through the link".utf8))
        #expect(FileManager.default.fileExists(atPath: realHome + "/.cache/hoard/default/.hoard-cache"))
    }

    @Test("A link to a folder that is not a cache is refused as that folder would be, and left as it was")
    func linkToForeignFolder() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let documents = base.url.appending(path: "documents").path
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(filePath: documents + "/notes.txt"))
        let link = base.url.appending(path: "cache").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: documents)
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: URL(filePath: link)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents) == ["notes.txt"])
    }
}
