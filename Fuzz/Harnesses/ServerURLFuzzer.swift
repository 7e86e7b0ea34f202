// libFuzzer harness: bytes as a request path and an Accept header from a client the server does
// not trust. The path goes to ImagePath (with presets), its signature to URLSigner.verify, the
// source to SourcePolicy. Checks: no crash; a parsed path's options validate and stay within the
// output limit; the options and source rebuild (ImagePath.signedPart) into a path that parses
// back to the same ones; a signature is accepted only when it is the path's own (the harness
// signs the same part and compares), and never after one byte of the signed part changes.
//
// Compiled as one module with Sources/HoardServer/**/*.swift and FuzzSupport.swift, over the
// fuzzer build of HoardSystem (HMAC, hex) and CHoardSupport's objects.
//
// With HOARD_FUZZ_WRITE_SEEDS=<folder>, it writes valid signed and unsigned paths into that folder
// instead (the seed corpus), and exits.
import Foundation

private let signer = try! URLSigner(keys: "00112233445566778899aabbccddeeff,ffeeddccbbaa99887766554433221100", salts: "0a0b,0c")
private let presets = ["thumb": ["w:128", "f:jpeg"], "wide": ["w:800", "h:200", "fit:fill", "g:sw"], "bad": ["w:0"]]
private let policy = try! SourcePolicy(
    allowing: ["https://images.example/photos/", "http://127.0.0.1:8080/"], localRoot: "/srv/images")

@_cdecl("LLVMFuzzerInitialize")
public func serverURLFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    FuzzSupport.writeSeedsIfAsked(writeSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func serverURLFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    // The first line is the path, the rest an Accept header.
    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
    let text = String(decoding: bytes[..<newline], as: UTF8.self)
    let accept = String(decoding: bytes[min(newline + 1, bytes.endIndex)...], as: UTF8.self)
    let negotiation = FormatNegotiation(accept: accept)
    _ = negotiation.format(for: .auto, isOpaque: bytes.count % 2 == 0)

    let presetsOnly = bytes.first.map { $0 & 1 == 1 } ?? false
    guard let path = try? ImagePath(parsing: text, presets: presets, presetsOnly: presetsOnly) else { return 0 }
    check(path)
    checkSignature(path)
    _ = try? policy.prefix(for: path.source)
    return 0
}

private func check(_ path: ImagePath) {
    let options = path.options
    FuzzSupport.check((try? options.validate()) != nil, "parsed options do not validate: \(options)")
    FuzzSupport.check(
        options.outputWidth <= ProcessingOptions.maximumSide && options.outputHeight <= ProcessingOptions.maximumSide
            && options.outputWidth >= 0 && options.outputHeight >= 0,
        "output size out of range: \(options)")
    guard let reparsedSource = try? ImageSource(parsing: path.source.description) else {
        FuzzSupport.fail("the source does not parse back: \(path.source)")
    }
    FuzzSupport.check(reparsedSource == path.source, "\(path.source) parses back as \(reparsedSource)")
    guard let part = try? ImagePath.signedPart(options: options, source: path.source),
        let rebuilt = try? ImagePath(parsing: "/" + ImagePath.unsignedMarker + part)
    else { FuzzSupport.fail("options \(options) and \(path.source) do not rebuild into a path that parses") }
    // A signed part always states the height: a square box's `nil` comes back as the width.
    var expected = options
    expected.height = options.height ?? options.width
    FuzzSupport.check(
        rebuilt.options == expected && rebuilt.source == path.source,
        "rebuilt \(rebuilt.options) \(rebuilt.source) from \(options) \(path.source)")
}

private func checkSignature(_ path: ImagePath) {
    guard let own = try? signer.signature(of: path.signedPart) else { FuzzSupport.fail("signing failed") }
    let accepted = (try? signer.verify(signature: path.signature ?? "", signedPart: path.signedPart)) != nil
    FuzzSupport.check(accepted == (path.signature == own), "signature \(path.signature ?? "nil") accepted: \(accepted)")
    FuzzSupport.check(
        (try? signer.verify(signature: own, signedPart: path.signedPart)) != nil, "its own signature is refused")
    var changed = Array(path.signedPart.utf8)
    guard !changed.isEmpty else { return }
    let index = Int(FuzzSupport.hash(changed.withUnsafeBytes { $0 })) % changed.count
    changed[index] ^= 0x01
    FuzzSupport.check(
        (try? signer.verify(signature: own, signedPart: String(decoding: changed, as: UTF8.self))) == nil
            || String(decoding: changed, as: UTF8.self) == path.signedPart,
        "a signature survived a changed byte")
}

private func writeSeeds(to folder: URL) throws -> Int {
    let sources = ["https://images.example/photos/a.jpg", "http://127.0.0.1:8080/x/y.png", "local:///photos/a b.jpg",
                   "https://evil.example/a.jpg", "local:///a/b/c.webp"]
    var written = 0
    for (index, source) in sources.enumerated() {
        var options = ProcessingOptions(width: 64 * (index + 1), height: index % 2 == 0 ? nil : 48)
        options.fit = index % 2 == 0 ? .fit : .fill
        options.gravity = ProcessingOptions.Gravity.allCases[index % 9]
        options.pixelRatio = [1, 2, 1.5, 3, 1][index]
        options.quality = index == 0 ? nil : 50 + index
        options.format = ProcessingOptions.Format.allCases[index % 4]
        let cleaned = source.replacingOccurrences(of: " ", with: "%20")
        guard let parsed = try? ImageSource(parsing: cleaned) else { continue }
        let part = try ImagePath.signedPart(options: options, source: parsed)
        let accepts = ["image/avif,image/webp,image/apng,*/*;q=0.8", "*/*", "image/webp;q=0"]
        try Data((signer.signedPath(part) + "\n" + accepts[index % 3]).utf8)
            .write(to: folder.appendingPathComponent("signed-\(index)"))
        try Data(("/unsafe/p:wide" + part + "\n").utf8).write(to: folder.appendingPathComponent("preset-\(index)"))
        let plain = "/unsafe/w:10/q:80/plain/" + (cleaned.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        try Data(plain.utf8).write(to: folder.appendingPathComponent("plain-\(index)"))
        written += 3
    }
    return written
}
