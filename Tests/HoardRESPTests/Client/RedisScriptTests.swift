import HoardRESP
import RedisTestSupport
import Testing

@Suite("RedisScript")
struct RedisScriptTests {
    @Test(
        "computes SHA-1 digests",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
            ),
            ("return 1", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"),
            (String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ])
    func digests(_ source: String, _ expected: String) {
        #expect(RedisScript(source).sha1 == expected)
    }
}
