import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// Reference decodes made by each format's own tool (`TestImages/references/<format>/`, see
/// `make_decoder_references.py`), and the comparison the decoder tests share.
enum DecoderReference {
    /// The core-set files in `TestImages/<folder>` whose names end in one of `suffixes`, sorted.
    static func files(in folder: String, suffixes: [String]) -> [String] {
        suffixes.flatMap { TestFiles.testImageNames(in: folder, suffix: $0) }.sorted()
    }

    /// The reference for `file` (`references/<folder>/<file without its extension>.png`), read by
    /// Hoard's PNG decoder, which is pixel-exact against pypng on PngSuite.
    static func image(_ folder: String, for file: String, variant: String = "") throws -> Image {
        let stem = file.split(separator: ".").dropLast().joined(separator: ".")
        return try Image(data: TestFiles.testImage("references/\(folder)/\(stem)\(variant).png"))
    }

    /// The largest difference between corresponding channels.
    struct Difference: CustomStringConvertible {
        let maximum: Int
        let channelsOver: Int
        var description: String { "largest difference \(maximum), \(channelsOver) channels over the tolerance" }
    }

    /// Expects `image` to have the reference's size and pixel format, and every channel within
    /// `tolerance` of it.
    @discardableResult
    static func expectMatch(
        _ image: Image, _ reference: Image, tolerance: Int, _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Difference? {
        #expect(
            image.width == reference.width && image.height == reference.height,
            "\(name): \(image.width) x \(image.height), reference \(reference.width) x \(reference.height)",
            sourceLocation: sourceLocation)
        #expect(
            image.format == reference.format, "\(name): \(image.format), reference \(reference.format)",
            sourceLocation: sourceLocation)
        guard image.width == reference.width, image.height == reference.height, image.format == reference.format
        else { return nil }
        let difference = Difference(
            maximum: PixelMath.maximumDifference(image, reference),
            channelsOver: PixelMath.countOver(tolerance, image, reference))
        #expect(difference.maximum <= tolerance, "\(name): \(difference)", sourceLocation: sourceLocation)
        return difference
    }

    /// Decodes with orientation off: the reference tools leave the stored pixels as they are.
    static func decodeStored(_ data: Data) throws -> Image {
        var options = Image.DecodingOptions()
        options.appliesOrientation = false
        options.colour = .ignore
        return try Image(data: data, options: options)
    }

    /// The stored values with the orientation applied, colour ignored: what reference decoders
    /// that leave colour to the viewer give.
    static func decodeIgnoringColour(_ data: Data) throws -> Image {
        var options = Image.DecodingOptions()
        options.colour = .ignore
        return try Image(data: data, options: options)
    }
}

extension Image.DecodingOptions {
    /// Options whose decode-time scaling stops at `size` itself (``Image/DecodeScale/fast``): what
    /// the decoders' tests of their scale choice ask for, as the C layer's `target_size`.
    static func decodingTo(_ size: Int) -> Self {
        var options = Self(targetSize: size)
        options.decodeScale = .fast
        return options
    }
}
