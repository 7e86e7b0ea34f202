import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Bad input")
struct BadInputTests {
    @Test("empty data and 1-7 bytes throw typed errors")
    func tinyInputs() throws {
        #expect(throws: ImageError.emptyData) { try Image(data: Data()) }
        let png = try TestFiles.testImage("PngSuite/basn2c08.png")
        let jpeg = try TestFiles.testImage("libjpeg-turbo/testorig.jpg")
        for length in 1...7 {
            for source in [png, jpeg, Data(repeating: 0x41, count: 8)] {
                let prefix = source.prefix(length)
                let error = #expect(throws: ImageError.self) { try Image(data: prefix) }
                switch error {
                case .unrecognizedFormat(let bytes)?: #expect(bytes == Array(prefix))
                case .truncated(.jpeg, _)?: #expect(length >= 3)
                default: Issue.record("\(length) bytes: \(String(describing: error))")
                }
            }
        }
    }

    static let truncationSources = [
        "PngSuite/basn2c08.png", "PngSuite/basi6a08.png", "libjpeg-turbo/testorig.jpg",
        "jpeg-decoder/restarts.jpg", "jpeg-decoder/non-interleaved-mcu.jpg",
    ]

    @Test("every truncation throws, never decodes wrong pixels", arguments: truncationSources)
    func everyTruncation(_ name: String) throws {
        let data = try TestFiles.testImage(name)
        let format = try #require(ImageFormat(sniffing: data))
        // Every byte offset: small files, so every marker and chunk boundary is hit.
        for length in 0..<data.count {
            do {
                let image = try Image(data: data.prefix(length))
                Issue.record("\(name) cut at \(length) of \(data.count) decoded \(image.width)x\(image.height)")
            } catch .emptyData {
                #expect(length == 0)
            } catch .unrecognizedFormat {
                #expect(length < 8)
            } catch .truncated(let errorFormat, let message), .malformed(let errorFormat, let message) {
                #expect(errorFormat == format)
                #expect(!message.isEmpty)
            } catch {
                Issue.record("\(name) cut at \(length): unexpected \(error)")
            }
        }
    }

    /// A PNG whose IHDR declares `width` x `height` (with a correct CRC) and no image data.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var ihdr: [UInt8] = Array("IHDR".utf8)
        for value in [width, height] { ihdr += withUnsafeBytes(of: value.bigEndian, Array.init) }
        ihdr += [8, 2, 0, 0, 0]  // 8-bit RGB, deflate, adaptive filtering, no interlace
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        data += ihdr + withUnsafeBytes(of: crc32(ihdr).bigEndian, Array.init)
        return Data(data)
    }

    /// A baseline JPEG header (SOI, DQT, SOF0) declaring `width` x `height`.
    static func jpegHeader(width: UInt16, height: UInt16) -> Data {
        var data: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        data += [0xFF, 0xC0, 0x00, 0x11, 0x08]
        data += withUnsafeBytes(of: height.bigEndian, Array.init) + withUnsafeBytes(of: width.bigEndian, Array.init)
        data += [0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        return Data(data)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("a PNG declaring 100000 x 100000 is refused from its header, with the declared size")
    func hugePNG() throws {
        let data = Self.pngHeader(width: 100_000, height: 100_000)
        #expect(throws: ImageError.tooLarge(.png, width: 100_000, height: 100_000, maximumPixelCount: 64_000_000)) {
            try Image(data: data)
        }
        let message = "\(ImageError.tooLarge(.png, width: 100_000, height: 100_000, maximumPixelCount: 64_000_000))"
        #expect(message.contains("PNG") && message.contains("100000 x 100000") && message.contains("64000000"))
    }

    @Test("a JPEG declaring 65535 x 65535 (the largest SOF can hold) is refused from its header")
    func hugeJPEG() throws {
        // SOF stores each side in 16 bits, so 100000 x 100000 cannot be declared in a JPEG.
        let data = Self.jpegHeader(width: 65535, height: 65535)
        #expect(throws: ImageError.tooLarge(.jpeg, width: 65535, height: 65535, maximumPixelCount: 64_000_000)) {
            try Image(data: data)
        }
    }

    @Test("the pixel limit applies to real images too, and can be raised")
    func customLimit() throws {
        let data = try TestFiles.testImage("libjpeg-turbo/testorig.jpg")
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 227 * 149 - 1
        #expect(throws: ImageError.tooLarge(.jpeg, width: 227, height: 149, maximumPixelCount: 227 * 149 - 1)) {
            try Image(data: data, options: options)
        }
        options.maximumPixelCount = 227 * 149
        #expect(try Image(data: data, options: options).width == 227)
        let png = Self.pngHeader(width: 9000, height: 9000)
        options.maximumPixelCount = 9000 * 9000
        // Allowed by the limit, so libpng goes on and finds no image data.
        #expect(throws: ImageError.self) { try Image(data: png, options: options) }
    }

    @Test("the manifest's reject files throw a typed error", .needsCorpus, arguments: CorpusManifest.entries("reject"))
    func rejectFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        #expect(throws: ImageError.self, "\(entry.note)") { try Image(data: data) }
    }

    @Test(
        "the manifest's robustness files decode or throw a typed error, within the limit",
        .needsCorpus, .timeLimit(.minutes(5)),
        arguments: CorpusManifest.entries("robustness", "valid-or-lenient", "reject-by-limit"))
    func robustnessFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        do {
            let image = try Image(data: data)
            #expect(image.width * image.height <= Image.DecodingOptions.defaultMaximumPixelCount)
            #expect(image.pixels.count == image.width * image.height * image.format.channelCount)
        } catch {
            #expect(!"\(error)".isEmpty)
        }
    }

    @Test(
        "HEIC and HEIF files (HEVC, which Hoard does not decode) are refused as unrecognised",
        .needsCorpus, arguments: CorpusManifest.undecodedEntries)
    func undecodedFormats(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        let error = #expect(throws: ImageError.self, "\(entry.format)") { try Image(data: data) }
        guard case .unrecognizedFormat? = error else {
            Issue.record("\(entry.path): \(String(describing: error))")
            return
        }
    }

    @Test("the manifest's valid images decode", .needsCorpus, arguments: CorpusManifest.entries("valid"))
    func validFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        let image = try Image(data: data)
        // The manifest gives the stored size; EXIF orientations 5-8 swap it.
        let size = entry.size.split(separator: "x").compactMap { Int($0) }
        if size.count == 2 {
            let sides = [image.width, image.height]
            #expect(sides == size || sides == size.reversed(), "\(entry.path): \(sides) vs \(size)")
        }
    }

    @Test(
        "12-bit, lossless and other extended JPEGs decode or say they are unsupported",
        .needsCorpus, arguments: CorpusManifest.entries(format: "JPEG", "valid-extended"))
    func extendedFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        do {
            _ = try Image(data: data)
        } catch .unsupported(.jpeg, let message) {
            #expect(message.contains("Unsupported") || message.contains("not"), "\(message)")
        }
    }

    /// libavif 0.11 (Debian 12) predates these files' features (the `mini` box, size-0 meta, audio
    /// tracks) and cannot tell them from damage: a newer libavif decodes them.
    @Test(
        "AVIF files that need a newer libavif decode or throw a typed error with libavif's message",
        .needsCorpus, arguments: CorpusManifest.entries(format: "AVIF", "valid-extended"))
    func extendedAVIFFiles(_ entry: CorpusEntry) throws {
        let data = try TestFiles.corpusFile(entry.path)
        do {
            _ = try Image(data: data)
        } catch {
            switch error {
            case .malformed(.avif, let message), .unsupported(.avif, let message):
                #expect(message.hasPrefix("avifDecoderParse: "), "\(message)")
            case .unrecognizedFormat:
                break  // a `mini` file's ftyp may have no avif brand
            default:
                Issue.record("\(entry.path): \(error)")
            }
        }
    }
}

@Suite("Pixel limit edge cases")
struct PixelLimitEdgeCaseTests {
    @Test("a limit of 0 (or less) refuses every image instead of lifting the limit")
    func zeroLimit() throws {
        var options = Image.DecodingOptions()
        options.maximumPixelCount = 0
        let data = try TestFiles.testImage("PngSuite/basn2c08.png")
        #expect(throws: ImageError.tooLarge(.png, width: 32, height: 32, maximumPixelCount: 0)) {
            try Image(data: data, options: options)
        }
    }

    @Test("a limit of Int.max still refuses a header whose pixel buffer cannot be addressed")
    func unaddressable() throws {
        var options = Image.DecodingOptions()
        options.maximumPixelCount = .max
        let data = BadInputTests.pngHeader(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF)
        // libpng refuses the sizes itself or Hoard does; either way a typed error, no trap.
        #expect(throws: ImageError.self) { try Image(data: data, options: options) }
    }
}
