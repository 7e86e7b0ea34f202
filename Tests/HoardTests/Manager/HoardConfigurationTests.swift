import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

@Suite("Hoard configuration")
struct HoardConfigurationTests {
    @Test("the default folder follows XDG: $XDG_CACHE_HOME/hoard/<name>, else ~/.cache/hoard/<name>")
    func defaultDirectory() {
        let home = URL(fileURLWithPath: "/home/fallback")
        let xdg = Hoard.Configuration.defaultDirectory(
            name: "thumbs", environment: ["XDG_CACHE_HOME": "/var/cache/me", "HOME": "/home/me"], home: home)
        #expect(xdg.path == "/var/cache/me/hoard/thumbs")
        let relative = Hoard.Configuration.defaultDirectory(
            name: "thumbs", environment: ["XDG_CACHE_HOME": "relative/path", "HOME": "/home/me"], home: home)
        #expect(relative.path == "/home/me/.cache/hoard/thumbs", "a relative XDG_CACHE_HOME is ignored, per the spec")
        let noHome = Hoard.Configuration.defaultDirectory(name: "default", environment: [:], home: home)
        #expect(noHome.path == "/home/fallback/.cache/hoard/default")
    }

    @Test("Hoard.shared is the \"default\" cache in the default folder")
    func shared() async throws {
        // In a child process whose $XDG_CACHE_HOME is a temporary folder: making Hoard.shared
        // makes its folder, which must not be the real ~/.cache.
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let child = try await ReadmeTests.run(
            try StressChild.requireExecutable(), ["shared-instance"], cacheHome: folder.url, in: folder.url)
        #expect(child.status == 0, "\(child.output)")
        let expected = Hoard.Configuration.defaultDirectory(
            name: "default", environment: ["XDG_CACHE_HOME": folder.url.path], home: folder.url)
        #expect(child.output == "default\n\(expected.path)\n")
    }

    @Test("names that could leave their folder are refused", arguments: ["", ".", "..", "a/b", "../x", "with space", "nul\0", String(repeating: "n", count: 200)])
    func invalidNames(_ name: String) {
        #expect(throws: HoardError.self) { try Hoard(configuration: .init(name: name)) }
    }

    @Test("a folder that cannot be created is a typed disk error naming the path")
    func unusableFolder() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        do {
            _ = try Hoard(configuration: .init(name: "x", directory: file.appendingPathComponent("cache")))
            Issue.record("no error")
        } catch let failure as HoardError {
            let error = try #require(failure.diskError, "\(failure)")
            #expect(error.path?.contains("plain-file") == true, "\(error)")
            #expect(error.errno == ENOTDIR || error.errno == EEXIST, "\(error)")
        }
    }
}
