import Foundation
import Testing

@testable import Hoard

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

    @Test("every valid PngSuite file decodes pixel-exact against pypng", arguments: PNGReference.all)
    func pngSuiteMatchesReference(_ reference: PNGReference) throws {
        let image = try Image(data: TestFiles.testImage("PngSuite/\(reference.file)"))
        #expect(image.width == reference.width)
        #expect(image.height == reference.height)
        #expect("\(image.format)" == reference.format)
        #expect(PixelMath.fnv1a64(image.converted(to: .rgba8).pixels) == reference.hash)
    }

    @Test("stored values, not gamma-corrected ones")
    func gammaIsNotApplied() throws {
        // basn0g16: 16-bit gray with gAMA; libpng's simplified API would turn 42 into 112.
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
}
