import Testing

@testable import HoardSystem

@Suite("SHA256")
struct SHA256Tests {
    @Test("digests match FIPS 180-2's test vectors, through the platform's library")
    func vectors() {
        #expect(SHA256.hexDigest([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hexDigest(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hexDigest(Array("abc".utf8), byteCount: 4) == "ba7816bf")
    }

    @Test("a string's digest is its UTF-8's, hashed in place or copied")
    func stringDigests() throws {
        #expect(SHA256.hash(utf8: "") == SHA256.hash([]))
        #expect(SHA256.hex(try #require(SHA256.hash(utf8: "abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        for text in ["clé/🙂 café", String(repeating: "key-", count: 100), String("xxabcxx".dropFirst(2).dropLast(2))] {
            #expect(SHA256.hash(utf8: text) == SHA256.hash(Array(text.utf8)), "\(text)")
        }
    }

    @Test("hex text and bytes convert both ways; anything else is refused")
    func hexRoundTrip() {
        let bytes: [UInt8] = [0x00, 0x0F, 0xBA, 0x78, 0xFF]
        #expect(SHA256.hex(bytes) == "000fba78ff")
        #expect(SHA256.bytes(fromHex: "000fba78ff") == bytes)
        #expect(SHA256.hex(bytes[2...3]) == "ba78")
        for bad in ["abc", "zz", "BA78", "ba 7", "é1"] {
            #expect(SHA256.bytes(fromHex: bad) == nil, "\(bad)")
        }
    }
}
