import CHoardCodecs
import Foundation
import HoardCore

/// The create/read/destroy triple that `CHoardCodecs` offers for each format, driven from one place.
struct NativeDecoder: Sendable {
    typealias Create =
        @convention(c) (
            UnsafePointer<UInt8>?, Int, UnsafePointer<hoard_decode_options>?,
            UnsafeMutablePointer<hoard_image_info>?, UnsafeMutablePointer<hoard_codec_result>?
        ) -> OpaquePointer?
    typealias Read =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<hoard_codec_result>?
        ) -> Int32
    typealias Destroy = @convention(c) (OpaquePointer?) -> Void
    /// How the stored pixels must be turned, read from a created decoder.
    typealias ReadOrientation = @Sendable (OpaquePointer) -> Image.Orientation
    /// Where a format's colour description is read: from the bytes before the decoder is made
    /// (JPEG, PNG), or from a created decoder (WebP, AVIF).
    enum ColourReader: Sendable {
        case none
        case bytes(@Sendable (UnsafeBufferPointer<UInt8>) -> ColourDescription)
        case decoder(@Sendable (OpaquePointer) -> ColourDescription)
    }

    let format: ImageFormat
    let create: Create
    let read: Read
    let destroy: Destroy
    let orientation: ReadOrientation
    let colour: ColourReader

    static let png = NativeDecoder(
        format: .png, create: hoard_png_decoder_create, read: hoard_png_decoder_read,
        destroy: hoard_png_decoder_destroy, orientation: { _ in .up }, colour: .bytes(ColourDescription.png))
    static let jpeg = NativeDecoder(
        format: .jpeg, create: hoard_jpeg_decoder_create, read: hoard_jpeg_decoder_read,
        destroy: hoard_jpeg_decoder_destroy, orientation: { exifOrientation($0, hoard_jpeg_decoder_exif) },
        colour: .bytes(ColourDescription.jpeg))
    static let webp = NativeDecoder(
        format: .webp, create: hoard_webp_decoder_create, read: hoard_webp_decoder_read,
        destroy: hoard_webp_decoder_destroy, orientation: { exifOrientation($0, hoard_webp_decoder_exif) },
        colour: .decoder(ColourDescription.webp))
    static let gif = NativeDecoder(
        format: .gif, create: hoard_gif_decoder_create, read: hoard_gif_decoder_read,
        destroy: hoard_gif_decoder_destroy, orientation: { _ in .up }, colour: .none)
    static let avif = NativeDecoder(
        format: .avif, create: hoard_avif_decoder_create, read: hoard_avif_decoder_read,
        destroy: hoard_avif_decoder_destroy, orientation: avifOrientation, colour: .decoder(ColourDescription.avif))

    static func forFormat(_ format: ImageFormat) -> NativeDecoder {
        switch format {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .gif: .gif
        case .avif: .avif
        }
    }

    /// Decodes `data`: header first (limit checked there), then the pixels straight into the
    /// array that the image keeps.
    ///
    /// - Returns: The image as decoded (before orientation, and smaller than declared when DCT
    ///   or WebP scaling applied) with the colour profile its values are in (unless `options` say
    ///   ``Image/ColourHandling/ignore``; a CMYK JPEG's profile is applied here), the size its
    ///   header declares (also before orientation), its orientation (EXIF for JPEG and WebP,
    ///   `irot`/`imir` for AVIF), and the warnings.
    func decode(_ data: Data, options: Image.DecodingOptions) throws(ImageError)
        -> (image: Image, declaredWidth: Int, declaredHeight: Int, orientation: Image.Orientation, warnings: [String])
    {
        var nativeOptions = hoard_decode_options(
            // At least 1: the C layer reads 0 as "no limit", which a caller's 0 does not mean.
            max_pixels: UInt64(max(1, options.maximumPixelCount)),
            scale_denominator: 1,
            target_size: UInt32(clamping: max(0, options.targetSize.map(options.decodeScale.decodeTarget(for:)) ?? 0)),
            allow_truncated: options.allowsTruncatedData ? 1 : 0,
            warnings_are_errors: options.treatsWarningsAsErrors ? 1 : 0,
            max_scans: UInt32(clamping: max(0, options.maximumScanCount)),
            progressive_reading: options.progressiveReading.native,
            raw_cmyk: 0)
        var info = hoard_image_info()
        var result = hoard_codec_result()
        let outcome: Result<(Image, Image.Orientation, [String]), ImageError> = data.withUnsafeBytes { raw in
            var colour = ColourDescription.srgb
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return .failure(.emptyData) }
            if options.colour != .ignore, case .bytes(let read) = self.colour {
                colour = read(bytes)
                // A CMYK profile converts libjpeg's CMYK values themselves.
                if colour.profile?.colourSpace == .cmyk { nativeOptions.raw_cmyk = 1 }
            }
            guard let decoder = create(base, bytes.count, &nativeOptions, &info, &result) else {
                return .failure(result.imageError(format, info: info, options: options))
            }
            defer { destroy(decoder) }
            if options.colour != .ignore, case .decoder(let read) = self.colour { colour = read(decoder) }
            let orientation = self.orientation(decoder)
            let cmykLayout = info.cmyk_layout
            guard let pixelFormat = Image.PixelFormat(channelCount: cmykLayout != 0 ? 3 : Int(info.channels)),
                info.width > 0, info.height > 0
            else {
                return .failure(
                    .unsupported(format, message: "\(info.channels) channels of \(info.width) x \(info.height)"))
            }
            let (area, areaOverflow) = Int(info.width).multipliedReportingOverflow(by: Int(info.height))
            let (count, countOverflow) = area.multipliedReportingOverflow(by: Int(info.channels))
            guard !areaOverflow, !countOverflow else {
                return .failure(
                    .tooLarge(
                        format, width: Int(info.declared_width), height: Int(info.declared_height),
                        maximumPixelCount: options.maximumPixelCount))
            }
            var status = Int32(HOARD_CODEC_OK.rawValue)
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                status = read(decoder, buffer.baseAddress, count, &result)
                // Trivial bytes: on failure the array is dropped unread.
                initialized = count
            }
            guard status == Int32(HOARD_CODEC_OK.rawValue) else {
                return .failure(result.imageError(format, info: info, options: options))
            }
            let width = Int(info.width), height = Int(info.height)
            if cmykLayout != 0 {
                let rgb = Self.convertCMYK(pixels, layout: hoard_pixel_layout(cmykLayout), colour: &colour)
                return .success(
                    (Image(unchecked: width, height: height, format: .rgb8, pixels: rgb), orientation, colour.warnings))
            }
            let profile = Self.usableProfile(&colour, for: pixelFormat, handling: options.colour)
            let image = Image(unchecked: width, height: height, format: pixelFormat, pixels: pixels, colourProfile: profile)
            return .success((image, orientation, colour.warnings))
        }
        let (image, orientation, colourWarnings) = try outcome.get()
        // The header's size, as the C layer read it before choosing a DCT scale.
        let declaredWidth = info.declared_width > 0 ? Int(info.declared_width) : image.width
        let declaredHeight = info.declared_height > 0 ? Int(info.declared_height) : image.height
        var warnings = result.warningLines + colourWarnings
        // A progressive JPEG read at a reduced scale stops after the scans it needs, so a file cut
        // after them decodes without libjpeg noticing: its end marker is what tells.
        if format == .jpeg, !options.allowsTruncatedData, !JPEGEnd.isPresent(in: data) {
            if options.treatsWarningsAsErrors { throw .truncated(.jpeg, message: Image.truncationWarning) }
            warnings.append(Image.truncationWarning)
        }
        return (image, declaredWidth, declaredHeight, orientation, warnings)
    }

    /// The size `data` shows once turned upright, read from its header alone (no pixels are
    /// decoded); `nil` when the header cannot be read.
    func uprightSize(of data: Data) -> (width: Int, height: Int)? {
        header(of: data).map { $0.orientation.swapsDimensions ? ($0.height, $0.width) : ($0.width, $0.height) }
    }

    /// The size the header declares, as stored, and the orientation that turns it upright.
    func header(of data: Data) -> (width: Int, height: Int, orientation: Image.Orientation)? {
        var options = hoard_decode_options()
        options.scale_denominator = 1
        var info = hoard_image_info()
        var result = hoard_codec_result()
        return data.withUnsafeBytes { raw -> (width: Int, height: Int, orientation: Image.Orientation)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress, !bytes.isEmpty,
                let decoder = create(base, bytes.count, &options, &info, &result)
            else { return nil }
            defer { destroy(decoder) }
            let width = Int(info.declared_width > 0 ? info.declared_width : info.width)
            let height = Int(info.declared_height > 0 ? info.declared_height : info.height)
            return (width, height, orientation(decoder))
        }
    }

    /// The profile `colour` describes, when it fits `format` and `handling` needs it (for
    /// ``Image/ColourHandling/srgb`` only one that changes something), and Little CMS can convert
    /// with it (the transform is made now, so that a later conversion cannot fail). What cannot
    /// be used becomes a warning, and the values are read as sRGB.
    private static func usableProfile(
        _ colour: inout ColourDescription, for format: Image.PixelFormat, handling: Image.ColourHandling
    ) -> ColourProfile? {
        guard let profile = colour.profile, handling != .ignore else { return nil }
        guard profile.describes(format) else {
            colour.warnings.append(
                "a \(profile.colourSpace) ICC profile does not describe \(format) pixels; colours read as sRGB")
            return nil
        }
        if profile.isSRGB { return handling == .keep ? profile : nil }
        do {
            _ = try ColourTransform.cached(for: profile, layout: format.colourLayout)
            return profile
        } catch {
            colour.warnings.append("\(error); colours read as sRGB")
            return nil
        }
    }

    /// libjpeg's CMYK values as sRGB: through the file's profile, else (with a warning) by formula.
    private static func convertCMYK(_ cmyk: [UInt8], layout: hoard_pixel_layout, colour: inout ColourDescription)
        -> [UInt8]
    {
        if let profile = colour.profile {
            do {
                return try ColourTransform.cached(for: profile, layout: layout).apply(to: cmyk)
            } catch {
                colour.warnings.append("\(error); CMYK converted by formula")
            }
        }
        let count = cmyk.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { rgb, initialized in
            cmyk.withUnsafeBufferPointer {
                hoard_cmyk_to_rgb($0.baseAddress, rgb.baseAddress, count, layout == HOARD_LAYOUT_CMYK_INVERTED ? 1 : 0)
            }
            initialized = count * 3
        }
    }

    /// The orientation tag of the Exif block a JPEG or WebP decoder found, else ``Image/Orientation/up``.
    private static func exifOrientation(
        _ decoder: OpaquePointer,
        _ exif: (OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<Int>?) -> Int32
    ) -> Image.Orientation {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard exif(decoder, &bytes, &length) == 1, let bytes else { return .up }
        return ExifOrientationReader.orientation(in: UnsafeBufferPointer(start: bytes, count: length)) ?? .up
    }

    /// The orientation an AVIF's `irot` and `imir` give (after its `clap` crop, which the C layer
    /// applies). Its Exif orientation, if any, is ignored, as MIAF requires.
    private static func avifOrientation(_ decoder: OpaquePointer) -> Image.Orientation {
        var turns: Int32 = 0
        var axis: Int32 = -1
        hoard_avif_decoder_transform(decoder, &turns, &axis)
        return Image.Orientation(quarterTurnsAnticlockwise: Int(turns), mirrorAxis: axis < 0 ? nil : Int(axis))
    }
}

extension hoard_codec_result {
    /// The library's message for a failed call.
    var messageText: String { Self.text(of: message) }

    /// One element per warning the library emitted (as much as the C buffer kept).
    var warningLines: [String] {
        Self.text(of: warnings).split(separator: "\n").map(String.init)
    }

    func imageError(_ format: ImageFormat, info: hoard_image_info, options: Image.DecodingOptions) -> ImageError {
        switch UInt32(bitPattern: status) {
        case HOARD_CODEC_TOO_LARGE.rawValue:
            .tooLarge(
                format, width: Int(info.declared_width), height: Int(info.declared_height),
                maximumPixelCount: options.maximumPixelCount)
        case HOARD_CODEC_TRUNCATED.rawValue: .truncated(format, message: messageText)
        case HOARD_CODEC_OUT_OF_MEMORY.rawValue: .outOfMemory(format, message: messageText)
        case HOARD_CODEC_UNSUPPORTED.rawValue: .unsupported(format, message: messageText)
        default: .malformed(format, message: messageText)
        }
    }

    private static func text<T>(of tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let end = raw.firstIndex(of: 0) ?? raw.count
            return String(decoding: raw[..<end], as: UTF8.self)
        }
    }
}
