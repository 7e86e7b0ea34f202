import HoardServer
import Testing

@Suite("URLSigner")
struct URLSignerTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    // The expected value is from Python's hmac module, the way imgproxy's examples/signature.py
    // signs: so imgproxy's signing libraries make paths this server accepts.
    @Test("the signature is imgproxy's: HMAC-SHA256(key, salt + path), URL-safe Base64 without padding")
    func imgproxyExample() throws {
        let signer = try URLSigner(keys: Self.key, salts: Self.salt)
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(try signer.signature(of: path) == "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40")
    }

    @Test("a signed path verifies; one changed byte, another encoding of the same path or a cut signature does not")
    func verify() throws {
        let signer = try URLSigner(keys: Self.key, salts: Self.salt)
        let part = "/w:256/f:webp/plain/https%3A%2F%2Fimages.example%2Fa.jpg"
        let signature = try signer.signature(of: part)
        try signer.verify(signature: signature, signedPart: part)
        #expect(try signer.signedPath(part) == "/" + signature + part)

        let tampered = ["/w:257/f:webp/plain/https%3A%2F%2Fimages.example%2Fa.jpg",
                        "/w:256/f:webp/plain/https%3a%2f%2fimages.example%2fa.jpg",
                        "/w:256/f:webp/plain/https://images.example/a.jpg", part + "/"]
        for other in tampered {
            #expect(throws: ServeError.self) { try signer.verify(signature: signature, signedPart: other) }
        }
        for bad in [String(signature.dropLast()), signature + "A", "", "unsafe", String(repeating: "!", count: 43)] {
            #expect(throws: ServeError.self) { try signer.verify(signature: bad, signedPart: part) }
        }
    }

    @Test("rotation: the first pair signs, every pair verifies, a removed pair no longer does")
    func rotation() throws {
        let old = try URLSigner(keys: "00112233445566778899aabbccddeeff", salts: "aa")
        let both = try URLSigner(keys: "ffeeddccbbaa99887766554433221100,00112233445566778899aabbccddeeff", salts: "bb,aa")
        let new = try URLSigner(keys: "ffeeddccbbaa99887766554433221100", salts: "bb")
        let part = "/w:100/aHR0cHM6Ly9hLmV4YW1wbGUvYS5qcGc"
        let oldSignature = try old.signature(of: part)
        try both.verify(signature: oldSignature, signedPart: part)
        #expect(throws: ServeError.signatureRefused("the signature matches no key")) {
            try new.verify(signature: oldSignature, signedPart: part)
        }
        #expect(try both.signature(of: part) == new.signature(of: part))
        #expect(try both.signature(of: part) != oldSignature)
    }

    @Test("keys and salts: counts must match, keys are hex of 16 bytes or more, and no message repeats a key")
    func configuration() throws {
        let secret = "00112233445566778899aabbccddeeff"
        for (keys, salts) in [(secret, "aa,bb"), ("", ""), ("0011", "aa"), (secret + "zz", "aa"), (secret, "xyz"),
                              (secret + ",", "aa,bb"), (secret, "")] {
            do {
                _ = try URLSigner(keys: keys, salts: salts)
                Issue.record("accepted keys \(keys) salts \(salts)")
            } catch {
                #expect(error.status == 403)
                #expect(!error.description.contains(secret))
            }
        }
        _ = try URLSigner(keys: " \(secret.uppercased()) ", salts: "AA")
    }
}
