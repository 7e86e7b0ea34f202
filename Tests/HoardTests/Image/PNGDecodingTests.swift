import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// One row of `TestImages/references/pngsuite.tsv`.
struct PNGReference: Sendable, CustomTestStringConvertible {
    let file: String
    let width: Int
    let height: Int
    let format: String
    let hash: UInt64
    var testDescription: String { file }

    static let all: [PNGReference] = {
        let url = TestFiles.testImages.appendingPathComponent("references/pngsuite.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let c = line.split(separator: "\t").map(String.init)
            guard c.count == 5, let w = Int(c[1]), let h = Int(c[2]), let hash = UInt64(c[4], radix: 16) else {
                return nil
            }
            return PNGReference(file: c[0], width: w, height: h, format: c[3], hash: hash)
        }
    }()
}

@Suite("PNG decoding")
struct PNGDecodingTests {
    @Test("the reference table covers PngSuite")
    func referencesLoaded() {
        // Every valid PngSuite image (the x* files are the corrupt ones).
        let valid = TestFiles.testImageNames(in: "PngSuite", suffix: ".png").filter { !$0.hasPrefix("x") }
        #expect(PNGReference.all.count == valid.count)
        #expect(valid.count >= 160)
    }

    /// The stored values (colour ignored: the ccw* files' cHRM and gAMA would be applied).
    @Test("every valid PngSuite file decodes pixel-exact against pypng", arguments: PNGReference.all)
    func pngSuiteMatchesReference(_ reference: PNGReference) throws {
        var options = Image.DecodingOptions()
        options.colour = .ignore
        let image = try Image(data: TestFiles.testImage("PngSuite/\(reference.file)"), options: options)
        #expect(image.width == reference.width)
        #expect(image.height == reference.height)
        #expect("\(image.format)" == reference.format)
        #expect(PixelMath.fnv1a64(image.converted(to: .rgba8).pixels) == reference.hash)
    }

    @Test("a gAMA without cHRM is not applied: stored values")
    func gammaIsNotApplied() throws {
        // basn0g16: 16-bit gray with gAMA (1.0) alone; libpng's simplified API would turn 42 into 112.
        let gray16 = try Image(data: TestFiles.testImage("PngSuite/basn0g16.png"))
        #expect(gray16.format == .gray8)
        #expect(gray16.pixels[100] == 42)
        let gray8 = try Image(data: TestFiles.testImage("PngSuite/basn0g08.png"))
        #expect(gray8.pixels[100] == 100)
    }

    @Test("palette with tRNS becomes RGBA; gray with tRNS becomes gray+alpha")
    func transparencyBecomesAlpha() throws {
        let palette = try Image(data: TestFiles.testImage("PngSuite/tbbn3p08.png"))
        #expect(palette.format == .rgba8)
        #expect(palette.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element == 0 })
        let gray = try Image(data: TestFiles.testImage("PngSuite/tbbn0g04.png"))
        #expect(gray.format == .grayAlpha8)
    }

    @Test("interlaced and non-interlaced versions decode to the same pixels")
    func interlacingIsUndone() throws {
        for name in ["0g01", "0g16", "2c08", "2c16", "3p08", "4a16", "6a16"] {
            let progressive = try Image(data: TestFiles.testImage("PngSuite/basi\(name).png"))
            let plain = try Image(data: TestFiles.testImage("PngSuite/basn\(name).png"))
            #expect(progressive == plain, "basi\(name) vs basn\(name)")
        }
    }

    @Test(
        "corrupt PngSuite files (x*) are rejected with a typed error",
        arguments: TestFiles.testImageNames(in: "PngSuite", suffix: ".png").filter { $0.hasPrefix("x") })
    func corruptFilesAreRejected(_ name: String) throws {
        let data = try TestFiles.testImage("PngSuite/\(name)")
        let error = #expect(throws: ImageError.self) { try Image(data: data) }
        switch error {
        case .malformed(.png, let message)?, .truncated(.png, let message)?:
            #expect(!message.isEmpty)
        case .unrecognizedFormat?:
            // xs*, xcr, xlf: the signature itself is damaged.
            #expect(name.hasPrefix("xs") || name.hasPrefix("xcr") || name.hasPrefix("xlf"))
        default:
            Issue.record("unexpected error for \(name): \(String(describing: error))")
        }
    }

    @Test("chunks libpng does not read are skipped: damaged metadata fails no strict decode; a damaged iCCP is a warning")
    func unusedChunksAreSkipped() throws {
        let image = try Image(width: 1, height: 1, format: .gray8, pixels: [128])
        let png = try image.pngData()
        // libpng used to parse these and warn "iCCP: too short" and "sCAL: invalid"; Hoard's own
        // colour reader now reads the iCCP, ignores the profile and says why.
        let damaged = Self.inserting(
            [Self.chunk("iCCP", Array("profile\0\0not zlib".utf8)), Self.chunk("sCAL", [1, 0x78])], into: png)
        let decoded = try Image.decodeReportingWarnings(damaged)
        #expect(decoded.image == image)
        #expect(decoded.warnings == ["PNG iCCP: compressed profile is damaged or cut short; profile ignored"])
        var strict = Image.DecodingOptions()
        strict.treatsWarningsAsErrors = true
        #expect(try Image(data: damaged, options: strict) == image)
        // A skipped chunk still has its CRC checked.
        var text = Self.chunk("tEXt", Array("Title\0x".utf8))
        text[text.count - 1] ^= 1
        #expect(try Image.decodeReportingWarnings(Self.inserting([text], into: png)).warnings == ["tEXt: CRC error"])
    }

    /// A PNG chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + body
            + withUnsafeBytes(of: BadInputTests.crc32(body).bigEndian, Array.init)
    }

    /// `png` with `chunks` inserted after IHDR (which ends at byte 33).
    static func inserting(_ chunks: [[UInt8]], into png: Data) -> Data {
        Data(png.prefix(33) + chunks.joined() + png.dropFirst(33))
    }
}
