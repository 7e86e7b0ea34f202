import Foundation
import HoardServer
import Testing

@Suite("hoard url")
struct URLCommandTests {
    static let keys = "00112233445566778899aabbccddeeff,ffeeddccbbaa99887766554433221100"
    static let salts = "0a0b,0c0d"
    static let environment = [URLSigner.keyVariable: keys, URLSigner.saltVariable: salts]

    @Test("prints a path signed with the first pair that the server's parser and signer accept")
    func signedPath() async throws {
        let outcome = try await HoardTool.run(
            ["url", "https://images.example/a b/ü.jpg".replacingOccurrences(of: " ", with: "%20"), "--width", "300",
             "--height", "200", "--fit", "fill", "--gravity", "sw", "--dpr", "2", "--format", "webp", "--quality", "70"],
            environment: Self.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let printed = outcome.standardOutput.trimmingCharacters(in: .newlines)
        let path = try ImagePath(parsing: printed)
        let signature = try #require(path.signature)
        try URLSigner(keys: Self.keys, salts: Self.salts).verify(signature: signature, signedPart: path.signedPart)
        // Signed with the first pair, not only verifiable by the set.
        let first = try URLSigner(keys: String(Self.keys.prefix(32)), salts: "0a0b")
        try first.verify(signature: signature, signedPart: path.signedPart)
        var expected = ProcessingOptions(width: 300, height: 200)
        expected.fit = .fillDown  // Hoard's fill: the box's proportions kept for a small source
        expected.gravity = .southWest
        expected.pixelRatio = 2
        expected.format = .webp
        expected.quality = 70
        #expect(path.options == expected)
        #expect(path.source == .remote(URL(string: "https://images.example/a%20b/%C3%BC.jpg")!))
    }

    @Test("--unsigned prints the /unsafe/ path and needs no key; defaults but the height are left out of the path")
    func unsigned() async throws {
        let outcome = try await HoardTool.run(["url", "local:///photos/a.jpg", "--width", "64", "--unsigned"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let path = try ImagePath(parsing: outcome.standardOutput.trimmingCharacters(in: .newlines))
        #expect(path.signature == nil && path.options == ProcessingOptions(width: 64, height: 64))
        #expect(path.source == .local(["photos", "a.jpg"]))
        #expect(path.signedPart.split(separator: "/").count == 3)
    }

    @Test("usage errors exit with 64 and never print a key", arguments: [
        ["url", "https://a.example/x.jpg", "--width", "-1"], ["url", "https://a.example/x.jpg", "--width", "9000"],
        ["url", "https://a.example/x.jpg", "--width", "10", "--fit", "stretch"],
        ["url", "https://a.example/x.jpg", "--width", "10", "--quality", "0"],
        ["url", "https://a.example/x.jpg", "--width", "10", "--dpr", "8"],
        ["url", "ftp://a.example/x.jpg", "--width", "10"], ["url", "local:///../x", "--width", "10"],
        ["url", "https://a.example/x.jpg"],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let outcome = try await HoardTool.run(arguments, environment: Self.environment)
        #expect(outcome.status == 64, "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("00112233"))
    }

    @Test("without keys it says which variables to set; a short key is refused without showing it")
    func missingKeys() async throws {
        let none = try await HoardTool.run(
            ["url", "https://a.example/x.jpg", "--width", "10"],
            environment: [URLSigner.keyVariable: "", URLSigner.saltVariable: ""])
        #expect(none.status == 64)
        let short = try await HoardTool.run(
            ["url", "https://a.example/x.jpg", "--width", "10"],
            environment: [URLSigner.keyVariable: "abcdef0123", URLSigner.saltVariable: "aa"])
        #expect(short.status == 64)
        #expect(short.standardError.contains("HOARD_SERVE_KEY") && !short.standardError.contains("abcdef0123"))
    }
}
