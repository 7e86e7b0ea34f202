import HoardSystem
import Testing

@Suite("HMACSHA256")
struct HMACSHA256Tests {
    @Test("RFC 4231 test cases 1, 2 and 6 (a key longer than a block)")
    func rfc4231() throws {
        let cases: [(key: [UInt8], message: [UInt8], code: String)] = [
            (
                [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xAA, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
        for testCase in cases {
            let code = try #require(HMACSHA256.code(key: testCase.key, message: testCase.message))
            #expect(SHA256.hex(code) == testCase.code)
        }
        // An empty key and message are valid inputs too.
        #expect(HMACSHA256.code(key: [], message: [])?.count == 32)
    }

    @Test("constantTimeEqual is byte equality, lengths included")
    func comparison() {
        #expect(HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.constantTimeEqual([9, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2], [1, 2, 3]))
        #expect(HMACSHA256.constantTimeEqual([], []))
    }
}
