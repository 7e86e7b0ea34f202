import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The segment file names and the handles a process keeps on them.
@Suite("Segment files")
struct SegmentFilesTests {
    @Test(
        "Only segment-<1 to 18 digits> is a segment file name",
        arguments: [
            ("segment-1", 1), ("segment-000042", 42), ("segment-999999999999999999", 999_999_999_999_999_999),
            ("segment-", nil), ("segment-1x", nil), ("segment--1", nil), ("segment-+1", nil), ("segment- 1", nil),
            ("segment-1234567890123456789", nil), ("Segment-1", nil), ("segment-１", nil), ("index.sqlite", nil),
        ] as [(String, Int?)])
    func names(name: String, id: Int?) {
        #expect(SegmentFiles.id(inFileName: name) == id)
    }

    @Test("More segments than the handles kept: each still reads its own bytes, and a removed one is missing")
    func manyHandles() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = folder.url.path(percentEncoded: false)
        let count = SegmentFiles.maximumKeptHandles + 16
        for id in 1...count {
            try Data("segment \(id)".utf8).write(to: URL(filePath: root + "/" + SegmentFiles.fileName(of: id)))
        }
        let files = SegmentFiles(rootPath: root)
        for round in 0..<2 {
            for id in 1...count {
                guard case .success(let handle) = files.handle(id, writable: false) else {
                    Issue.record("round \(round): segment \(id) did not open")
                    continue
                }
                var buffer = [UInt8](repeating: 0, count: 64)
                let read = buffer.withUnsafeMutableBytes { pread(handle.descriptor, $0.baseAddress, 64, 0) }
                #expect(read > 0 && String(decoding: buffer[..<max(read, 0)], as: UTF8.self) == "segment \(id)")
            }
        }
        #expect(files.keptHandleCount == SegmentFiles.maximumKeptHandles)
        try FileManager.default.removeItem(atPath: root + "/" + SegmentFiles.fileName(of: 1))
        files.forget(1)
        guard case .failure(.missing) = files.handle(1, writable: false) else {
            Issue.record("a removed segment opened")
            return
        }
    }
}
