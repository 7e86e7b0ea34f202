import Foundation

extension Image {
    /// Decodes a PNG or JPEG file.
    ///
    /// The format is sniffed from the leading bytes. PNG comes back with its stored values (no
    /// gamma correction), 16-bit channels reduced to their high byte, palettes expanded and tRNS
    /// turned into alpha. JPEG comes back as gray or RGB (CMYK and YCCK converted), turned upright
    /// according to its EXIF orientation unless ``DecodingOptions/appliesOrientation`` is off.
    ///
    /// ```swift
    /// let image = try Image(data: try Data(contentsOf: url))
    /// print(image.width, image.height, image.format)
    /// ```
    ///
    /// - Parameters:
    ///   - data: The encoded file.
    ///   - options: Limits, decode-time downscaling and strictness.
    /// - Throws: ``ImageError``: `emptyData`, `unrecognizedFormat`, `tooLarge` (from the header,
    ///   before pixel memory is allocated), `truncated`, `malformed`, `unsupported`, `outOfMemory`.
    /// - Complexity: O(pixels), with memory for the output pixels only (plus libjpeg's coefficient
    ///   buffer for progressive JPEG).
    public init(data: Data, options: DecodingOptions = .init()) throws(ImageError) {
        self = try Self.decodeReportingWarnings(data, options: options).image
    }

    /// Decodes like ``init(data:options:)`` and also returns the decoder's warnings.
    ///
    /// libjpeg and libpng go on after some damage (extraneous bytes before a marker, a bad CRC
    /// on an ancillary chunk) and say so in a warning; this is where those warnings surface.
    ///
    /// - Returns: The image and the warnings, one message each, in the order they were emitted.
    /// - Throws: As ``init(data:options:)``.
    public static func decodeReportingWarnings(_ data: Data, options: DecodingOptions = .init())
        throws(ImageError) -> (image: Image, warnings: [String])
    {
        guard !data.isEmpty else { throw .emptyData }
        guard let format = ImageFormat(sniffing: data) else {
            throw .unrecognizedFormat(leadingBytes: Array(data.prefix(8)))
        }
        let decoded = try NativeDecoder.forFormat(format).decode(data, options: options)
        let image = options.appliesOrientation ? decoded.image.applyingOrientation(decoded.orientation) : decoded.image
        return (image, decoded.warnings)
    }

    /// Makes a thumbnail from encoded bytes in one call: decode-time downscaling first (JPEG), then
    /// a resampling filter down to the box.
    ///
    /// ```swift
    /// let thumbnail = try Image.thumbnail(from: photoBytes, fittingIn: 256)
    /// ```
    ///
    /// - Parameters:
    ///   - data: A PNG or JPEG file.
    ///   - box: The longest side of the result, at least 1. Smaller images keep their size.
    ///   - options: Decoding options; its ``DecodingOptions/targetSize`` is set to `box`.
    ///   - filter: The resampling filter for the final step.
    /// - Throws: As ``init(data:options:)``.
    public static func thumbnail(
        from data: Data, fittingIn box: Int, options: DecodingOptions = .init(),
        filter: ResamplingFilter = .lanczos3
    ) throws(ImageError) -> Image {
        precondition(box > 0, "A thumbnail box must be at least 1 pixel")
        var options = options
        options.targetSize = box
        return try Image(data: data, options: options).resized(toFit: box, filter: filter)
    }
}
