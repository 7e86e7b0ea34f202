import Foundation
import Testing

@testable import Hoard

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
    func shared() {
        #expect(Hoard.shared.configuration.name == "default")
        #expect(Hoard.shared.directory == Hoard.Configuration.defaultDirectory(name: "default"))
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
        } catch HoardError.disk(let error) {
            #expect(error.path?.contains("plain-file") == true, "\(error)")
            #expect(error.errno == ENOTDIR || error.errno == EEXIST, "\(error)")
        }
    }
}
