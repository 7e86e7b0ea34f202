import Foundation
import HoardTestSupport
import Testing

/// Every command that writes or cleans leaves alone what the cache did not make: a folder of user
/// files is refused, a `tmp` that is a link is never followed, and user files in the cache folder
/// stay byte for byte.
@Suite("hoard: the cache folder's neighbours are safe")
struct CacheFolderSafetyTests {
    /// A command that writes or cleans the cache.
    enum Command: String, CaseIterable, Sendable {
        case thumbnails, clear, prune, remove, put
        /// A `put` over the limit: the store triggers a trim.
        case putTriggeringTrim

        func arguments(cache: String, scratch: Scratch) -> [String] {
            switch self {
            case .thumbnails:
                let photo = testImages.appendingPathComponent("libjpeg-turbo/testorig.jpg").path
                return ["thumbnails", photo, "--size", "16", "--output", scratch.path("out"), "--cache", cache]
            case .clear: return ["cache", "clear", "--cache", cache]
            case .prune: return ["cache", "prune", "--cache", cache]
            case .remove: return ["cache", "remove", "existing", "--cache", cache]
            case .put: return ["cache", "put", "new", scratch.path("small"), "--cache", cache]
            case .putTriggeringTrim:
                return ["cache", "put", "big", scratch.path("big"), "--cache", cache, "--cache-limit", "1"]
            }
        }
    }

    /// What the folder given as `--cache` holds before the command.
    enum Setup: String, CaseIterable, Sendable {
        /// Not a cache: user files.
        case userFiles
        /// Not a cache: only a `tmp` link to the victim folder.
        case temporaryLink
        /// Not a cache: only a `tmp` with user files.
        case temporaryUserFiles
        /// A cache whose `tmp` was replaced by a link to the victim folder.
        case cacheWithTemporaryLink
        /// A cache with user files beside its entries and in its `tmp`.
        case cacheWithUserFiles

        var isCache: Bool { self == .cacheWithTemporaryLink || self == .cacheWithUserFiles }
    }

    @Test(
        "after each command, every file that is not the cache's is still there, byte for byte",
        arguments: Command.allCases, Setup.allCases)
    func userFilesSurvive(command: Command, setup: Setup) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let cache = scratch.path("cache")
        try Data("small value".utf8).write(to: URL(fileURLWithPath: scratch.path("small")))
        try Data(repeating: 7, count: 1_500_000).write(to: URL(fileURLWithPath: scratch.path("big")))
        try write("x", scratch.path("victim/a.txt"))
        try write("y", scratch.path("victim/sub/b.txt"))
        try write("named like ours", scratch.path("victim/123-abc.tmp"))
        if setup.isCache {
            let made = try await HoardTool.run(["cache", "put", "existing", scratch.path("small"), "--cache", cache])
            try #require(made.status == 0, "\(made.standardError)")
        }
        switch setup {
        case .userFiles:
            try write("notes", cache + "/notes.txt")
            try write("more", cache + "/ab/b.txt")
        case .temporaryLink, .cacheWithTemporaryLink:
            try? FileManager.default.removeItem(atPath: cache + "/tmp")
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: cache + "/tmp", withDestinationPath: scratch.path("victim"))
        case .temporaryUserFiles:
            try write("notes", cache + "/tmp/project/notes.txt")
        case .cacheWithUserFiles:
            try write("notes", cache + "/notes.txt")
            try write("project", cache + "/tmp/project/notes.txt")
            try write("mine", cache + "/tmp/notes.tmp")
        }
        // The cache's own files: its marker, tag, index, lease file, entries (in shard folders),
        // temporary files and the originals' cache.
        let isCaches = { (path: String) in
            let parts = path.split(separator: "/").map(String.init)
            guard parts.count >= 2, parts[0] == "cache", setup.isCache else { return false }
            return parts.count == 2
                && [
                    ".hoard-cache", "CACHEDIR.TAG", "expired-before", "fetch-leases", "index.sqlite", "index.sqlite-wal",
                    "index.sqlite-shm", "space-reserve",
                ]
                .contains(parts[1])
                || parts[1] == "originals"  // the originals' own cache, made by the tool
                || parts.count <= 3 && parts[1].count == 2 && parts[1] != "tmp"
                || parts.count == 3 && parts[1] == "tmp" && parts[2].hasSuffix(".tmp") && parts[2].first?.isNumber == true
        }
        let before = try FolderSnapshot(of: scratch.url).filter { isCaches($0) || $0.hasPrefix("out") }

        let outcome = try await HoardTool.run(command.arguments(cache: cache, scratch: scratch))

        #expect(try FolderSnapshot(of: scratch.url).filter { isCaches($0) || $0.hasPrefix("out") } == before)
        switch setup {
        case .userFiles, .temporaryLink, .temporaryUserFiles:
            #expect(outcome.status == 1)
            #expect(
                outcome.standardError.contains("is not a Hoard cache and is not empty; refusing to use it"),
                "\(outcome.standardError)")
        case .cacheWithTemporaryLink:
            // `remove` does not need tmp, nor do `put` and `thumbnails`, whose small values are kept
            // inside the index; everything else refuses to write or clean through it.
            let needsTemporaryFolder = ![.remove, .put, .thumbnails].contains(command)
            #expect(outcome.status == (needsTemporaryFolder ? 1 : 0), "\(outcome.standardError)")
            if needsTemporaryFolder {
                #expect(outcome.standardOutput.contains("is a symbolic link") || outcome.standardError.contains("is a symbolic link"))
            }
        case .cacheWithUserFiles:
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
    }

    @Test("a new cache folder is made with mode 0700; one other users may write gets a warning")
    func permissions() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fresh = scratch.path("new/cache")
        try Data("a value".utf8).write(to: URL(fileURLWithPath: scratch.path("value")))
        #expect(try await HoardTool.run(["cache", "put", "k", scratch.path("value"), "--cache", fresh]).status == 0)
        for path in [fresh, scratch.path("new")] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o700)
        }
        #expect(FileManager.default.fileExists(atPath: fresh + "/CACHEDIR.TAG"))
        let shared = scratch.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: shared)
        let outcome = try await HoardTool.run(["cache", "stats", "--cache", shared])
        #expect(outcome.status == 0)
        #expect(outcome.standardError.contains("writable by other users"), "\(outcome.standardError)")
        #expect(!outcome.standardOutput.contains("writable"), "warnings go to standard error")
    }

    private func write(_ text: String, _ path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}
