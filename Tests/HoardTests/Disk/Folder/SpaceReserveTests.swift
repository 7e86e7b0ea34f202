import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// The room kept for a clean-up on a full disk, on its own: made whole or not at all, completed
/// when short, never through a link or into a file another name shares, and removed only when it
/// is a regular file.
@Suite("SpaceReserve")
struct SpaceReserveTests {
    @Test func itIsMadeOnceWholeAndReleased() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let reserve = SpaceReserve(rootPath: folder.url.path, logByteLimit: 256 * 1024)
        #expect(reserve.byteCount == 192 * 1024)
        #expect(reserve.make())
        let made = try FileManager.default.attributesOfItem(atPath: reserve.path)
        #expect(made[.size] as? Int == reserve.byteCount)
        #expect(reserve.make(), "a reserve already there is kept")
        #expect(reserve.release())
        #expect(!FileManager.default.fileExists(atPath: reserve.path))
        #expect(!reserve.release())
    }

    @Test func aLinkOrAFolderInItsPlaceIsLeftAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let outside = folder.url.appendingPathComponent("outside").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        let reserve = SpaceReserve(rootPath: folder.url.path, logByteLimit: 256 * 1024)
        try FileManager.default.createSymbolicLink(atPath: reserve.path, withDestinationPath: outside)
        #expect(!reserve.make())
        #expect(!reserve.release())
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Data("keep".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: reserve.path)) == outside)
        try FileManager.default.removeItem(atPath: reserve.path)
        try FileManager.default.createDirectory(atPath: reserve.path, withIntermediateDirectories: false)
        #expect(!reserve.make())
        #expect(!reserve.release())
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: reserve.path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test("a reserve a killed process left short is completed; one with a second link is left alone")
    func aShortReserveIsCompletedALinkedOneLeftAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let reserve = SpaceReserve(rootPath: folder.url.path, logByteLimit: 256 * 1024)
        #expect(FileManager.default.createFile(atPath: reserve.path, contents: Data(repeating: 0, count: 1000)))
        #expect(reserve.make())
        #expect(try FileManager.default.attributesOfItem(atPath: reserve.path)[.size] as? Int == reserve.byteCount)

        try FileManager.default.removeItem(atPath: reserve.path)
        let other = folder.url.appendingPathComponent("other").path
        #expect(FileManager.default.createFile(atPath: other, contents: Data("theirs".utf8)))
        try FileManager.default.linkItem(atPath: other, toPath: reserve.path)
        #expect(!reserve.make())
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == Data("theirs".utf8))
    }

    @Test(.enabled(if: Tmpfs.canMount, "needs root and mount rights for a small tmpfs"))
    func itIsNotMadeWithoutTwiceItsSizeFree() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Tmpfs.mountCacheFolder(of: folder, byteCount: 1 << 20)
        defer { Tmpfs.unmount(folder.cacheURL.path) }
        let large = SpaceReserve(rootPath: folder.cacheURL.path, logByteLimit: 1 << 20)  // 576 KiB of 1 MiB
        #expect(!large.make())
        #expect(!FileManager.default.fileExists(atPath: large.path))
        let small = SpaceReserve(rootPath: folder.cacheURL.path, logByteLimit: 128 * 1024)
        #expect(small.make())
    }
}
