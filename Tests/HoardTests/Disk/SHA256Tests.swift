import HoardSystem
import Testing

@testable import HoardCore

@Suite("SHA-256")
struct SHA256Tests {
    @Test("FIPS 180-2 vectors, through the platform's library")
    func knownVectors() {
        #expect(SHA256.hexDigest([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

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
