import Foundation
import Testing

import CHoardCodecs

@testable import HoardImage

/// Tagged images decode to sRGB within one level of references Pillow's ImageCms made
/// (`TestImages/colour/make_colour_fixtures.py`, see its README).
@Suite("Colour: tagged images converted to sRGB")
struct ColourConversionTests {
    static let tagged = [
        "prophoto.jpg", "prophoto.png", "prophoto-split.jpg", "adobergb.jpg", "adobergb.png", "p3.jpg", "p3.png",
        "p3.webp", "p3-icc.avif", "p3-nclx.avif", "bt2020-nclx.avif", "gama-chrm.png", "gray.jpg", "gray.png",
        "cmyk.jpg",
    ]

    static func decode(_ name: String, colour: Image.ColourHandling = .srgb) throws -> (image: Image, warnings: [String]) {
        var options = Image.DecodingOptions()
        options.colour = colour
        return try Image.decodeReportingWarnings(TestFiles.testImage("colour/" + name), options: options)
    }

    /// The reference as the decoded image's format: gray references are stored as RGB with R = G = B.
    static func reference(for name: String, format: Image.PixelFormat) throws -> Image {
        try Image(data: TestFiles.testImage("colour/\(name).srgb.png")).converted(to: format)
    }

    @Test("each tagged file decodes to sRGB within one level of the reference, with no profile left", arguments: tagged)
    func withinOneLevel(name: String) throws {
        let (image, warnings) = try Self.decode(name)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(image.colourProfile == nil)
        let reference = try Self.reference(for: name, format: image.format)
        #expect(image.width == reference.width && image.height == reference.height)
        let maximum = PixelMath.maximumDifference(image, reference)
        #expect(maximum <= 1, "\(name): max \(maximum), mean \(PixelMath.meanDifference(image, reference))")
        // And the conversion did something: the stored values are far from the reference.
        let stored = try Self.decode(name, colour: .ignore).image
        #expect(PixelMath.maximumDifference(stored, reference) > 1, "\(name)")
    }

    @Test("ignore reads the stored values as sRGB; keep reads the same values and carries the profile")
    func ignoreAndKeep() throws {
        let ignored = try Self.decode("p3.png", colour: .ignore).image
        let kept = try Self.decode("p3.png", colour: .keep).image
        #expect(ignored.colourProfile == nil)
        #expect(kept.pixels == ignored.pixels)
        #expect(kept.colourProfile?.iccData == (try TestFiles.testImage("colour/p3.icc")))
        #expect(kept.colourProfile?.colourSpace == .rgb)
        // Converting the kept image later gives what decoding to sRGB gives.
        #expect(try kept.convertedToSRGB() == (try Self.decode("p3.png").image))
    }

    @Test("an untagged image decodes to the same pixels and no profile whatever the colour setting")
    func untagged() throws {
        let data = try TestFiles.testImage("colour/srgb-source.png")
        let images = try Image.ColourHandling.allCases.map { colour in
            var options = Image.DecodingOptions()
            options.colour = colour
            return try Image(data: data, options: options)
        }
        #expect(images.allSatisfy { $0 == images[0] && $0.colourProfile == nil })
    }

    /// Converting after the filter, as `vipsthumbnail` does, would differ where the filter mixes
    /// colours the conversion clips (these fixtures' neon hats: a mean of 0.25 to 0.64 levels, 1.4%
    /// to 9% of values off by more than one, ProPhoto the worst); converting the decode-time
    /// downscaled raster before the filter gives exactly what converting first gives.
    @Test("a thumbnail is converted after decode-time downscaling: exactly as if converted first", arguments: tagged)
    func convertAfterDecodeScaling(name: String) throws {
        let data = try TestFiles.testImage("colour/" + name)
        let thumbnail = try Image.thumbnail(from: data, fittingIn: 64)
        var options = Image.DecodingOptions(targetSize: 64)
        options.colour = .keep
        let decoded = try Image(data: data, options: options)
        let first = try decoded.convertedToSRGB().resampled(width: thumbnail.width, height: thumbnail.height, filter: .lanczos3)
        #expect(thumbnail == first, "\(name): max \(PixelMath.maximumDifference(thumbnail, first))")
        #expect(thumbnail.colourProfile == nil)
    }

    @Test(
        "RGB matrix-shaper profiles take the direct path, which agrees with Little CMS within one level on a 64-step cube",
        arguments: ["p3.icc", "adobergb.icc", "prophoto.icc", "gama-chrm.icc", "bt2020-bt709.icc"])
    func directPathMatchesLittleCMS(_ name: String) throws {
        let profile = try ColourProfile(iccData: TestFiles.testImage("colour/" + name))
        var cube: [UInt8] = []
        let steps = (0..<64).map { UInt8($0 * 255 / 63) }
        for r in steps { for g in steps { for b in steps { cube += [r, g, b, 200] } } }
        for layout in [HOARD_LAYOUT_RGB, HOARD_LAYOUT_RGBA] {
            let channels = layout == HOARD_LAYOUT_RGB ? 3 : 4
            let pixels = channels == 4 ? cube : cube.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            let transform = try ColourTransform.cached(for: profile, layout: layout)
            #expect(transform.isDirect, "\(name)")
            let direct = transform.apply(to: pixels), general = transform.applyThroughLittleCMS(to: pixels)
            let differences = zip(direct, general).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 0 <= 1, "\(name): \(differences.max() ?? 0)")
            #expect(differences.count { $0 > 0 } * 100 < differences.count, "\(name): under 1% differ by a level")
            if channels == 4 { #expect(stride(from: 3, to: direct.count, by: 4).allSatisfy { direct[$0] == 200 }) }
        }
    }
}
