import Foundation
import HoardCore
import HoardSystem

extension Image {
    /// Decodes a PNG, JPEG, WebP, GIF or AVIF file.
    ///
    /// The format is sniffed from the leading bytes (see ``ImageFormat/init(sniffing:)``), never
    /// taken from a name. PNG comes back with its stored values (no gamma correction), 16-bit
    /// channels reduced to their high byte, palettes expanded and tRNS turned into alpha. JPEG comes
    /// back as gray or RGB (CMYK and YCCK converted). WebP comes back as RGB or RGBA; an animation
    /// as its first frame on a transparent canvas. GIF comes back as its first image on its canvas
    /// (the logical screen, grown to hold that image), RGBA when it has a transparent colour or
    /// leaves part of the canvas uncovered (both transparent black), else RGB; nothing after the
    /// first image is read. AVIF comes back as gray (4:0:0) or RGB, with alpha when it has an alpha
    /// item, 10 and 12 bits reduced to 8, its clean aperture cropped; a sequence as its first
    /// frame. JPEG and WebP are turned upright according to their EXIF orientation, AVIF according
    /// to its `irot` and `imir`, unless ``DecodingOptions/appliesOrientation`` is off.
    ///
    /// Colours are converted to sRGB by default (see ``DecodingOptions/colour``): from the embedded
    /// ICC profile (JPEG APP2, PNG `iCCP`, WebP `ICCP`, AVIF `colr`, a CMYK JPEG's through its
    /// profile), else from a PNG's `cHRM` and `gAMA` or an AVIF's `nclx` primaries and transfer.
    /// A profile that cannot be used is ignored with a warning. HDR transfers (PQ, HLG) are not
    /// tone-mapped: their values stay as stored, with a warning.
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
    /// - Complexity: O(pixels), with memory for the output pixels plus what each library keeps:
    ///   libjpeg's coefficient buffer for progressive JPEG; libwebp's ARGB copy of a lossless WebP
    ///   (4 bytes per pixel) and the alpha plane of a lossy one; for AVIF the decoded planes, an
    ///   RGB copy when cropped or gray, and for a grid up to one AV1 decoder per 65,536 allowed
    ///   pixels (about 0.4 MB each). All of it is bounded by the pixel limit.
    public init(data: Data, options: DecodingOptions = .init()) throws(ImageError) {
        self = try Self.decodeReportingWarnings(data, options: options).image
    }

    /// Decodes like ``init(data:options:)`` and also returns the decoder's warnings.
    ///
    /// libjpeg and libpng go on after some damage (extraneous bytes before a marker, a bad CRC
    /// on an ancillary chunk) and say so in a warning, as Hoard does for a GIF whose first image
    /// reaches past its screen or indexes past its palette, a WebP whose EXIF chunk cannot be read,
    /// and an AVIF whose clean aperture is not a window inside it (ignored); this is where those
    /// warnings surface.
    ///
    /// - Returns: The image and the warnings, one message each, in the order they were emitted.
    /// - Throws: As ``init(data:options:)``.
    public static func decodeReportingWarnings(_ data: Data, options: DecodingOptions = .init())
        throws(ImageError) -> (image: Image, warnings: [String])
    {
        let decoded = try decodeKeepingFullSize(data, options: options)
        return (try decoded.image.finishingColour(options.colour), decoded.warnings)
    }

    /// The size `data` shows once turned upright (EXIF or AVIF orientation applied), read from
    /// its header without decoding pixels: what a tool reports for a file it writes out as is.
    ///
    /// ```swift
    /// if let size = Image.uprightSize(of: thumbnailBytes) { print(size.width, size.height) }
    /// ```
    ///
    /// - Returns: The size, or `nil` when `data` is not an image whose header can be read.
    package static func uprightSize(of data: Data) -> (width: Int, height: Int)? {
        guard let format = ImageFormat(sniffing: data) else { return nil }
        return NativeDecoder.forFormat(format).uprightSize(of: data)
    }

    /// The EXIF (or AVIF) orientation `data`'s header names (``Orientation/up`` when it names
    /// none), read without decoding pixels; `nil` when `data` is not an image whose header can be read.
    package static func orientation(of data: Data) -> Orientation? {
        guard let format = ImageFormat(sniffing: data) else { return nil }
        return NativeDecoder.forFormat(format).header(of: data)?.orientation
    }

    /// Makes a thumbnail from encoded bytes in one call: decode-time downscaling first (JPEG, still
    /// WebP, opaque GIF) as far as `options`' ``DecodingOptions/decodeScale`` allows, then a
    /// resampling filter down to the box.
    ///
    /// The thumbnail's size comes from the image's full size (after EXIF orientation), not from
    /// the DCT-scaled decode, and is rounded as Pillow's `Image.thumbnail` rounds it (see
    /// ``resized(toFit:filter:)``): a 2268 x 1512 JPEG fitted into 256 decodes at 1/4 scale
    /// (567 x 378: the filter is left a factor of two or more, as vips leaves it) and is then
    /// resampled to exactly 256 x 171, the size Pillow and `vipsthumbnail` make. Images within the
    /// box keep their size. Colours are converted to sRGB (unless `options` say otherwise) on the
    /// decoded raster, after decode-time downscaling and before the filter: a 12 MP JPEG is
    /// converted at 1/16 of its pixels, and the result is the one converting the whole image would
    /// give (converting after the filter instead differs where the filter mixes colours the
    /// conversion clips).
    ///
    /// ```swift
    /// let thumbnail = try Image.thumbnail(from: photoBytes, fittingIn: 256)
    /// ```
    ///
    /// - Parameters:
    ///   - data: A PNG, JPEG, WebP, GIF or AVIF file.
    ///   - box: The longest side of the result, at least 1. Smaller images keep their size.
    ///   - options: Decoding options; its ``DecodingOptions/targetSize`` is set to `box`.
    ///   - filter: The resampling filter for the final step.
    /// - Returns: The thumbnail, upright unless `options` turns orientation off.
    /// - Throws: ``ImageError/invalidValue(_:)`` naming `box` when it is less than 1 (checked
    ///   before anything is decoded); otherwise as ``init(data:options:)``.
    /// - Complexity: O(decoded pixels x kernel width) after the decode.
    public static func thumbnail(
        from data: Data, fittingIn box: Int, options: DecodingOptions = .init(),
        filter: ResamplingFilter = .lanczos3
    ) throws(ImageError) -> Image {
        try thumbnailReportingWarnings(from: data, fittingIn: box, options: options, filter: filter).image
    }

    /// ``thumbnail(from:fittingIn:options:filter:)`` with the decoder's warnings (see
    /// ``decodeReportingWarnings(_:options:)``), among them ``truncationWarning`` for a JPEG cut
    /// after the scans a reduced scale needed.
    ///
    /// ```swift
    /// let (thumbnail, warnings) = try Image.thumbnailReportingWarnings(from: bytes, fittingIn: 256)
    /// if warnings.contains(Image.truncationWarning) { print("the file is cut short") }
    /// ```
    ///
    /// - Returns: The thumbnail and the warnings, in the order they were emitted.
    /// - Throws: As ``thumbnail(from:fittingIn:options:filter:)``.
    public static func thumbnailReportingWarnings(
        from data: Data, fittingIn box: Int, options: DecodingOptions = .init(),
        filter: ResamplingFilter = .lanczos3
    ) throws(ImageError) -> (image: Image, warnings: [String]) {
        guard box >= 1 else {
            throw .invalidValue(InvalidValueError(field: "box", value: "\(box)", requirement: "at least 1"))
        }
        var options = options
        options.targetSize = box
        let decoded = try decodeKeepingFullSize(data, options: options)
        guard let size = try fittingSize(width: decoded.fullWidth, height: decoded.fullHeight, box: box) else {
            // Within the box: decoded at full size (no DCT scale shrinks below the target).
            return (try decoded.image.finishingColour(options.colour), decoded.warnings)
        }
        // No larger than the full size, which the decoding limit allowed: no second limit here.
        let converted = try decoded.image.finishingColour(options.colour)
        return (converted.resampled(width: size.width, height: size.height, filter: filter), decoded.warnings)
    }

    /// The warning a decode reports for a JPEG that ends before its end-of-image marker when the
    /// scans it read were whole (a progressive file read at a reduced scale): the image may lack
    /// detail its missing scans held. With ``DecodingOptions/treatsWarningsAsErrors`` it is
    /// ``ImageError/truncated(_:message:)`` instead.
    public static let truncationWarning =
        "JPEG data ends before its end-of-image marker: the file is truncated, and the image may lack the detail of its missing scans"

    /// The decoded image as `handling` leaves it: converted to sRGB, or as it is.
    private func finishingColour(_ handling: ColourHandling) throws(ImageError) -> Image {
        handling == .srgb ? try convertedToSRGB() : self
    }

    // MARK: - Private

    /// Decodes `data` and applies its orientation as `options` say; also returns the size the
    /// header declares, oriented the same way: the full size even when DCT scaling made the
    /// pixels smaller.
    private static func decodeKeepingFullSize(_ data: Data, options: DecodingOptions) throws(ImageError)
        -> (image: Image, fullWidth: Int, fullHeight: Int, warnings: [String])
    {
        guard !data.isEmpty else { throw .emptyData }
        guard let format = ImageFormat(sniffing: data) else {
            throw .unrecognizedFormat(leadingBytes: Array(data.prefix(8)))
        }
        let decoded = try NativeDecoder.forFormat(format).decode(data, options: options)
        guard options.appliesOrientation else {
            return (decoded.image, decoded.declaredWidth, decoded.declaredHeight, decoded.warnings)
        }
        let swaps = decoded.orientation.swapsDimensions
        return (
            decoded.image.applyingOrientation(decoded.orientation),
            swaps ? decoded.declaredHeight : decoded.declaredWidth,
            swaps ? decoded.declaredWidth : decoded.declaredHeight,
            decoded.warnings
        )
    }
}
