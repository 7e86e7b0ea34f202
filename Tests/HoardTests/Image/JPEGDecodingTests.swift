import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("JPEG decoding")
struct JPEGDecodingTests {
    /// libjpeg-turbo's IDCT and upsampling differ slightly from the reference decoder's
    /// (ImageMagick over IJG libjpeg made jpeg-decoder's PNGs), so channels may differ by up to 2.
    static let idctTolerance = 2
    /// Measured: ycck.jpg (CMYK rounding) and mjpeg.jpg (IJG's DCT-domain h2v1 upsampling versus
    /// libjpeg-turbo's "fancy" upsampling) have a few channels 3 off; allow that for at most 0.1%.
    static let outlierTolerance = 3
    static let outlierShare = 0.001

    static let coreReferences = TestFiles.testImageNames(in: "jpeg-decoder", suffix: ".jpg")

    @Test("decodes like the reference PNGs (±2 per channel)", arguments: coreReferences)
    func matchesReference(_ name: String) throws {
        try Self.compare(
            jpeg: TestFiles.testImage("jpeg-decoder/\(name)"),
            reference: TestFiles.testImage("jpeg-decoder/\(name.dropLast(4)).png"), name: name)
    }

    static let corpusReferences: [String] = {
        guard let corpus = TestFiles.corpus else { return [] }
        let folder = corpus.appendingPathComponent("jpeg-decoder/reftest/images")
        let names = ((try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? [])
        return names.filter { $0.hasSuffix(".jpg") && !$0.hasPrefix("lossless") }
            .filter {
                FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent(String($0.dropLast(4)) + ".png").path)
            }
            .sorted()
    }()

    @Test("every reftest JPEG with a reference PNG matches it", .needsCorpus, arguments: corpusReferences)
    func corpusMatchesReference(_ name: String) throws {
        try Self.compare(
            jpeg: TestFiles.corpusFile("jpeg-decoder/reftest/images/\(name)"),
            reference: TestFiles.corpusFile("jpeg-decoder/reftest/images/\(name.dropLast(4)).png"), name: name)
    }

    static func compare(jpeg: Data, reference: Data, name: String) throws {
        // The references are libjpeg's stored values (a CMYK file's converted by formula).
        let image = try DecoderReference.decodeIgnoringColour(jpeg)
        var expected = try Image(data: reference)
        #expect(image.width == expected.width && image.height == expected.height, "\(name) size")
        guard image.width == expected.width, image.height == expected.height else { return }
        // The reference PNGs are RGB(A) even for gray JPEGs; compare in the decoder's format.
        expected = expected.flattened(onto: 0).converted(to: image.format)
        let over = PixelMath.countOver(idctTolerance, image, expected)
        let worst = PixelMath.maximumDifference(image, expected)
        #expect(worst <= outlierTolerance, "\(name): a channel differs by \(worst)")
        #expect(
            Double(over) <= outlierShare * Double(image.pixels.count),
            "\(name): \(over) of \(image.pixels.count) channels differ by more than \(idctTolerance)")
    }

    @Test("gray JPEGs decode to one channel, colour ones to RGB")
    func outputFormats() throws {
        let gray = try Image(data: TestFiles.testImage("jpeg-decoder/grayscale_16x24_sampling2x2.jpg"))
        #expect(gray.format == .gray8)
        #expect(gray.width == 16 && gray.height == 24)
        let ycck = try Image(data: TestFiles.testImage("jpeg-decoder/ycck.jpg"))
        #expect(ycck.format == .rgb8)
        let progressive = try Image(data: TestFiles.testImage("libjpeg-turbo/testimgint.jpg"))
        #expect(progressive.format == .rgb8 && progressive.width == 227 && progressive.height == 149)
    }

    @Test("arithmetic-coded and Huffman-coded versions of one image decode alike")
    func arithmeticCoding() throws {
        let arithmetic = try Image(data: TestFiles.testImage("libjpeg-turbo/testimgari.jpg"))
        let huffman = try Image(data: TestFiles.testImage("libjpeg-turbo/testimgint.jpg"))
        #expect(arithmetic.width == huffman.width && arithmetic.height == huffman.height)
        #expect(PixelMath.maximumDifference(arithmetic, huffman) <= 2)
    }

    @Test("libjpeg warnings are reported, and can be made errors")
    func warningsSurface() throws {
        let data = try TestFiles.testImage("jpeg-decoder/extraneous-data.jpg")
        let (image, warnings) = try Image.decodeReportingWarnings(data)
        #expect(image.width == 16)
        #expect(warnings.contains { $0.contains("extraneous bytes") }, "\(warnings)")
        var strict = Image.DecodingOptions()
        strict.treatsWarningsAsErrors = true
        let error = #expect(throws: ImageError.self) { try Image(data: data, options: strict) }
        guard case .malformed(.jpeg, let message)? = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("extraneous bytes"))
    }

    @Test("truncated JPEG is an error by default and a warning when allowed")
    func truncation() throws {
        let data = try TestFiles.testImage("libjpeg-turbo/testorig.jpg")
        let cut = data.prefix(data.count * 2 / 3)
        let error = #expect(throws: ImageError.self) { try Image(data: cut) }
        #expect(error == .truncated(.jpeg, message: "Premature end of JPEG file"))
        var lenient = Image.DecodingOptions()
        lenient.allowsTruncatedData = true
        let (image, warnings) = try Image.decodeReportingWarnings(cut, options: lenient)
        #expect(image.width == 227 && image.height == 149)
        #expect(warnings.contains("Premature end of JPEG file"))
    }

    @Test("a progressive JPEG with more scans than allowed is refused")
    func scanLimit() throws {
        var options = Image.DecodingOptions()
        options.maximumScanCount = 5
        let data = try TestFiles.testImage("jpeg-decoder/progressive3.jpg")
        #expect(throws: ImageError.malformed(.jpeg, message: "JPEG has more than 5 scans")) {
            try Image(data: data, options: options)
        }
        options.maximumScanCount = 11
        #expect(try Image(data: data, options: options).width == 650)
    }
}

@Suite("JPEG chroma subsampling")
struct JPEGSubsamplingTests {
    static let files = TestFiles.testImageNames(in: "subsampling", suffix: ".jpg")

    @Test("every sampling factor decodes close to the source", arguments: files)
    func samplingFactors(_ name: String) throws {
        let source = try Image(data: TestFiles.testImage("subsampling/source.png"))
        let decoded = try Image(data: TestFiles.testImage("subsampling/\(name)"))
        #expect(decoded.width == 256 && decoded.height == 160 && decoded.format == .rgb8)
        let psnr = PixelMath.psnr(decoded, source)
        #expect(psnr > 32, "\(name): \(psnr) dB")
    }

    @Test("the set covers 4:4:4, 4:2:2, 4:4:0, 4:2:0, 4:1:1, 4:1:0 and progressive with restarts")
    func coverage() {
        #expect(Self.files.count == 7)
    }
}
