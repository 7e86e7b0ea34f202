import HoardSystem
import Testing

@testable import HoardCore

/// The digest's vectors are HoardSystemTests' (SHA256Tests); here, how the disk tier names files with it.
@Suite("Entry file names")
struct EntryFileNameTests {
    @Test("Entry file names are the digest's 64 lowercase hex digits")
    func fileNames() throws {
        let name = try DiskCache.fileName(forKey: "abc")
        #expect(name == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(Array("abc".utf8), byteCount: 8) == "ba7816bf8f01cfea")
        #expect(EntryFiles.isEntryFileName(name))
        #expect(
            try DiskCache.fileName(forKey: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
