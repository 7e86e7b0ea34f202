import Foundation
import HoardSystem

/// Signs request paths and checks their signatures: HMAC-SHA256 over a salt followed by the path
/// after the signature segment, under one of several key pairs (the first signs, every one
/// verifies, so that keys can be rotated), compared in constant time over the bytes received.
///
/// It is the scheme imgproxy uses, so its signing libraries produce paths this server accepts.
///
/// ```swift
/// let signer = try URLSigner(keys: "736563726574", salts: "68656c6c6f")  // "secret", "hello"
/// let path = try signer.signedPath("/w:256/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw")
/// ```
public struct URLSigner: Sendable {
    /// One key and its salt.
    public struct KeyPair: Sendable {
        let key: [UInt8]
        let salt: [UInt8]
    }

    /// The pairs, the signing one first.
    let pairs: [KeyPair]

    /// The environment variables the tool reads the keys and salts from.
    public static let keyVariable = "HOARD_SERVE_KEY"
    /// See ``keyVariable``.
    public static let saltVariable = "HOARD_SERVE_SALT"

    /// Signer over key pairs given as hex text: several keys (and as many salts) separated by
    /// commas; the first pair signs.
    ///
    /// - Throws: ``ServeError/signatureRefused(_:)`` when either list is empty, holds text that
    ///   is not hex, a key shorter than 16 bytes, or the two lists differ in length. The message
    ///   never repeats a key.
    public init(keys: String, salts: String) throws(ServeError) {
        let keyList = keys.split(separator: ",", omittingEmptySubsequences: false)
        let saltList = salts.split(separator: ",", omittingEmptySubsequences: false)
        guard keyList.count == saltList.count else {
            throw .signatureRefused(
                "\(Self.keyVariable) has \(keyList.count) keys and \(Self.saltVariable) \(saltList.count) salts")
        }
        var pairs: [KeyPair] = []
        for (index, (key, salt)) in zip(keyList, saltList).enumerated() {
            guard let keyBytes = Self.bytes(fromHex: key), keyBytes.count >= 16 else {
                throw .signatureRefused("key \(index + 1) of \(Self.keyVariable) is not hex of at least 16 bytes")
            }
            guard let saltBytes = Self.bytes(fromHex: salt) else {
                throw .signatureRefused("salt \(index + 1) of \(Self.saltVariable) is not hex")
            }
            pairs.append(KeyPair(key: keyBytes, salt: saltBytes))
        }
        self.pairs = pairs
    }

    /// The signature of `signedPart` (a path's part after the signature segment, from its `/`)
    /// under the signing pair, URL-safe Base64 without padding.
    ///
    /// - Throws: ``ServeError/signatureRefused(_:)`` when the HMAC library fails.
    public func signature(of signedPart: String) throws(ServeError) -> String {
        Base64URL.encode(try Self.code(pairs[0], Array(signedPart.utf8)))
    }

    /// `signedPart` with its signature in front: the path a client requests.
    ///
    /// - Throws: As ``signature(of:)``.
    public func signedPath(_ signedPart: String) throws(ServeError) -> String {
        "/" + (try signature(of: signedPart)) + signedPart
    }

    /// Checks a request's signature against every key pair.
    ///
    /// - Parameters:
    ///   - signature: The signature segment as received.
    ///   - signedPart: The rest of the path as received.
    /// - Throws: ``ServeError/signatureRefused(_:)`` when it is not Base64 of 32 bytes or no pair
    ///   gives it.
    public func verify(signature: String, signedPart: String) throws(ServeError) {
        // Exactly the 43 characters `signature(of:)` writes: no padding, no other spelling of the
        // same bytes, so that one image has one URL.
        guard signature.utf8.count == 43, let received = Base64URL.decode(signature), received.count == 32,
            Base64URL.encode(received) == signature
        else {
            throw .signatureRefused("the signature is not 43 characters of URL-safe Base64")
        }
        let message = Array(signedPart.utf8)
        var matched = false
        // Every pair is tried, so that the time does not tell which one matched.
        for pair in pairs {
            let expected = try Self.code(pair, message)
            matched = HMACSHA256.constantTimeEqual(expected, received) || matched
        }
        guard matched else { throw .signatureRefused("the signature matches no key") }
    }

    private static func code(_ pair: KeyPair, _ message: [UInt8]) throws(ServeError) -> [UInt8] {
        guard let code = HMACSHA256.code(key: pair.key, message: pair.salt + message) else {
            throw .signatureRefused("the HMAC library failed")
        }
        return code
    }

    private static func bytes(fromHex text: Substring) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { return nil }
        return SHA256.bytes(fromHex: trimmed)
    }
}
