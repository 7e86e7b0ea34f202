import Foundation
import HoardTestSupport
import Testing

@testable import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("FileSystem")
struct FileSystemTests {
    @Test("writeAtomically puts the whole file in place; readFully reads it back at any offset")
    func writeAndRead() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/file"
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try FileSystem.writeAtomically(bytes, to: path).get()
        let descriptor = try FileSystem.open(path, flags: FileSystem.readOnlyFlags).get()
        defer { FileSystem.close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4_000)
        let count = try buffer.withUnsafeMutableBytes { try FileSystem.readFully(descriptor, into: $0, at: 7_000).get() }
        #expect(count == 3_000)
        #expect(Array(buffer.prefix(count)) == Array(bytes[7_000...]))
        #expect(try FileSystem.status(of: descriptor).get().byteCount == 10_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["file"], "no temporary file left")
    }

    @Test("reading opens refuse a symbolic link, naming the call and errno")
    func refusesLinks() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try FileSystem.writeAtomically([1, 2, 3], to: scratch.path + "/target").get()
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/link", withDestinationPath: "target")
        let result = FileSystem.open(scratch.path + "/link", flags: FileSystem.readOnlyFlags)
        guard case .failure(let error) = result else {
            Issue.record("a link was opened")
            return
        }
        #expect(error.call == "open" && error.errno == ELOOP)
        #expect(try FileSystem.linkStatus(scratch.path + "/link").get().kind == .symbolicLink)
        #expect(try FileSystem.status(ofPath: scratch.path + "/link").get().kind == .regular)
    }

    @Test("a failed call names its path; a missing file's removal counts as done unless asked otherwise")
    func errorsNamePaths() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let missing = scratch.path + "/missing"
        guard case .failure(let error) = FileSystem.removeFile(missing, missingIsSuccess: false) else {
            Issue.record("removing a missing file succeeded")
            return
        }
        #expect(error.errno == ENOENT)
        #expect(error.description.contains("failed") && error.description.contains("errno \(ENOENT)"))
        #expect(throws: Never.self) { try FileSystem.removeFile(missing).get() }
        let blocked = scratch.path + "/file/child"
        try FileSystem.writeAtomically([0], to: scratch.path + "/file").get()
        guard case .failure(let parentError) = FileSystem.makeDirectoryAndParents(blocked) else {
            Issue.record("made a folder under a file")
            return
        }
        #expect(parentError.errno == ENOTDIR || parentError.errno == EEXIST)
    }

    @Test("folders are made with their parents, and listed with each entry's kind")
    func directories() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try FileSystem.makeDirectoryAndParents(scratch.path + "/a/b/c").get()
        try FileSystem.writeAtomically([9], to: scratch.path + "/a/file").get()
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/a/link", withDestinationPath: "b")
        let stream = try DirectoryStream(path: scratch.path + "/a")
        var entries: [DirectoryStream.Entry] = []
        while let entry = stream.next() { entries.append(entry) }
        let kinds = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.kind) })
        #expect(Set(kinds.keys) == ["b", "file", "link"], "no . or ..")
        #expect(kinds["b"] == .directory && kinds["file"] == .regular && kinds["link"] == .symbolicLink)
        #expect(try FileSystem.contentsOfDirectory(scratch.path + "/a").get().sorted() == ["b", "file", "link"])
    }
}
