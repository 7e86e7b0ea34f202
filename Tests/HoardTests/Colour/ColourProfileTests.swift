import Foundation
import Testing

import CHoardCodecs
@testable import HoardImage

/// Profiles are checked before use; damaged or hostile ones are ignored with a warning, never a
/// crash (the suite also runs under AddressSanitizer, see `scripts/sanitize`).
@Suite("Colour: profiles and hostile input")
struct ColourProfileTests {
    static func profile(_ name: String) throws -> Data { try TestFiles.testImage("colour/" + name) }

    @Test("profiles report their colour space; one made with sRGB's primaries and curve is sRGB")
    func colourSpaces() throws {
        #expect(try ColourProfile(iccData: Self.profile("p3.icc")).colourSpace == .rgb)
        #expect(try ColourProfile(iccData: Self.profile("gray.icc")).colourSpace == .gray)
        #expect(try ColourProfile(iccData: Self.profile("cmyk.icc")).colourSpace == .cmyk)
        #expect(try !ColourProfile(iccData: Self.profile("p3.icc")).isSRGB)
        let srgb = try ColourProfile.rgb(
            chromaticities: [0.3127, 0.3290, 0.640, 0.330, 0.300, 0.600, 0.150, 0.060], curve: HOARD_CURVE_SRGB)
        #expect(srgb.isSRGB)
    }

    @Test("damaged profiles are refused with a message: empty, cut, oversized, bad signature, lying sizes, tag offsets")
    func damagedProfiles() throws {
        let good = try Self.profile("p3.icc")
        var badSignature = good
        badSignature[36] = UInt8(ascii: "x")
        var claimsMore = good
        claimsMore.replaceSubrange(0..<4, with: [0x7F, 0xFF, 0xFF, 0xFF])
        var manyTags = good
        manyTags.replaceSubrange(128..<132, with: [0x00, 0xFF, 0xFF, 0xFF])
        var offsetsOut = good
        // Every tag's offset far past the end (entries of 12 bytes from 132: signature, offset, size).
        let tagCount = Int(good[131]) | Int(good[130]) << 8
        for tag in 0..<tagCount {
            offsetsOut.replaceSubrange((136 + 12 * tag)..<(140 + 12 * tag), with: [0x00, 0xFF, 0x00, 0x00])
        }
        var deviceLink = good
        deviceLink.replaceSubrange(12..<16, with: Array("link".utf8))
        let cases: [(String, Data)] = [
            ("empty", Data()), ("cut", good.prefix(100)), ("cut in its tags", good.prefix(good.count / 2)),
            ("over 4 MiB", good + Data(count: ColourProfile.maximumByteCount)), ("signature", badSignature),
            ("declared size", claimsMore), ("tag count", manyTags), ("device link", deviceLink),
        ]
        for (name, data) in cases {
            #expect(throws: ImageError.self, "\(name)") { _ = try ColourProfile(iccData: data) }
        }
        // Tags past the end: Little CMS skips them when it opens the profile, which then cannot convert.
        let opened = try? ColourProfile(iccData: offsetsOut)
        if let opened {
            #expect(throws: ImageError.self) { _ = try ColourTransform.cached(for: opened, layout: HOARD_LAYOUT_RGB) }
        }
    }

    @Test("a profile of another colour space than the pixels is refused")
    func mismatchedSpace() throws {
        let gray = try ColourProfile(iccData: Self.profile("gray.icc"))
        #expect(throws: ImageError.self) {
            _ = try Image(width: 1, height: 1, format: .rgb8, pixels: [1, 2, 3], colourProfile: gray)
        }
        let image = try Image(width: 1, height: 1, format: .gray8, pixels: [7], colourProfile: gray)
        #expect(throws: ImageError.self) {
            _ = try image.withColourProfile(try ColourProfile(iccData: Self.profile("p3.icc")))
        }
        // Gray to colour applies the gray profile first: no gray profile on RGB pixels.
        #expect(image.converted(to: .rgb8).colourProfile == nil)
    }

    @Test(
        "hostile files decode with a warning and their stored values, never a crash",
        arguments: [
            "hostile-truncated-profile.jpg", "hostile-oversized-profile.png", "hostile-tag-offsets.png",
            "split-missing.jpg",
        ])
    func hostileFiles(name: String) throws {
        let data = try TestFiles.testImage("colour/" + name)
        let (image, warnings) = try Image.decodeReportingWarnings(data)
        var options = Image.DecodingOptions()
        options.colour = .ignore
        let stored = try Image(data: data, options: options)
        #expect(!warnings.isEmpty)
        #expect(image == stored && image.colourProfile == nil)
    }

    @Test("a JPEG whose ICC markers come out of order is assembled by their numbers, as libjpeg-turbo does")
    func markersOutOfOrder() throws {
        let (image, warnings) = try Image.decodeReportingWarnings(TestFiles.testImage("colour/split-out-of-order.jpg"))
        let inOrder = try Image(data: TestFiles.testImage("colour/prophoto-split.jpg"))
        #expect(warnings.isEmpty && image == inOrder)
    }

    @Test("JPEG ICC markers: repeated, miscounted and over-limit sets are refused; a file with none has none")
    func jpegMarkers() throws {
        func marker(_ sequence: UInt8, of count: UInt8, _ body: [UInt8]) -> [UInt8] {
            let payload = Array("ICC_PROFILE".utf8) + [0, sequence, count] + body
            let length = payload.count + 2
            return [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        func scan(_ markers: [UInt8]) -> (Int32, Int) {
            let file = [0xFF, 0xD8] + markers + [0xFF, 0xD9]
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            var message = [CChar](repeating: 0, count: 200)
            let status = hoard_jpeg_icc_profile(file, file.count, &output, &size, &message, message.count)
            hoard_colour_free(output)
            return (status, size)
        }
        let chunk = [UInt8](repeating: 7, count: 60_000)
        #expect(scan(marker(1, of: 2, [1, 2]) + marker(2, of: 2, [3])) == (1, 3))
        #expect(scan(marker(2, of: 2, [3]) + marker(1, of: 2, [1, 2])) == (1, 3))
        #expect(scan(marker(1, of: 2, [1]) + marker(1, of: 2, [1])).0 == -1)
        #expect(scan(marker(1, of: 2, [1]) + marker(2, of: 3, [1])).0 == -1)
        #expect(scan(marker(1, of: 2, [1])).0 == -1)
        #expect(scan(marker(0, of: 1, [1])).0 == -1)
        let many = (1...71).flatMap { marker(UInt8($0), of: 71, chunk) }  // 4.26 MB
        #expect(scan(many).0 == -1)
        #expect(scan([]).0 == 0)
    }

    @Test("the shared corpus's profiles: each tagged valid file converts as its kept profile says", .needsCorpus)
    func corpusProfiles() throws {
        var tagged = 0
        for entry in CorpusManifest.entries where entry.expectation == "valid" {
            let data = try TestFiles.corpusFile(entry.path)
            var keep = Image.DecodingOptions()
            keep.colour = .keep
            keep.appliesOrientation = false
            guard let kept = try? Image(data: data, options: keep), kept.colourProfile != nil else { continue }
            tagged += 1
            var srgb = keep
            srgb.colour = .srgb
            #expect(try Image(data: data, options: srgb) == kept.convertedToSRGB(), "\(entry.path)")
        }
        #expect(tagged >= 5, "\(tagged) tagged files")
    }
}
