import CHoardCodecs
import Foundation
import HoardCore
import HoardSystem

extension Image {
    /// The JPEG quality used when none is given: 90.
    public static let defaultJPEGQuality = 90

    /// Encodes the image as PNG, keeping every pixel exactly (8 bits per channel, all four formats),
    /// with its ``colourProfile`` (if any) as an `iCCP` chunk.
    ///
    /// - Parameter compressionLevel: zlib level 0 (fastest) to 9 (smallest); default 6, libpng's.
    /// - Returns: A complete PNG file.
    /// - Throws: ``ImageError/invalidValue(_:)`` for a level outside 0...9;
    ///   ``ImageError/encodingFailed(_:message:)`` with libpng's message.
    public func pngData(compressionLevel: Int = 6) throws(ImageError) -> Data {
        do {
            try InvalidValueError.check(compressionLevel, in: 0...9, "Image.pngData(compressionLevel:)")
        } catch {
            throw .invalidValue(error)
        }
        return try encode(.png) { pixels, icc, iccSize, output, size, result in
            hoard_png_encode(
                pixels, UInt32(width), UInt32(height), UInt32(format.channelCount),
                Int32(compressionLevel), icc, iccSize, output, size, result)
        }
    }

    /// Encodes the image as a baseline JPEG (4:2:0 chroma subsampling for colour), with its
    /// ``colourProfile`` (if any) in APP2 markers.
    ///
    /// JPEG has no alpha: images with alpha are composited onto white first (see
    /// ``flattened(onto:)``), so transparent areas come out white rather than as whatever colour
    /// the transparent pixels happened to store.
    ///
    /// - Parameter quality: 1 (smallest) to 100 (best); default ``defaultJPEGQuality``.
    /// - Returns: A complete JPEG file.
    /// - Throws: ``ImageError/invalidQuality(_:)`` outside 1...100, ``ImageError/encodingFailed(_:message:)``
    ///   with libjpeg's message (for example a side over 65,500 pixels).
    public func jpegData(quality: Int = Image.defaultJPEGQuality) throws(ImageError) -> Data {
        guard (1...100).contains(quality) else { throw .invalidQuality(quality) }
        let opaque = hasAlpha ? flattened(onto: 255) : self
        return try opaque.encode(.jpeg) { pixels, icc, iccSize, output, size, result in
            hoard_jpeg_encode(
                pixels, UInt32(opaque.width), UInt32(opaque.height),
                UInt32(opaque.format.channelCount), Int32(quality), icc, iccSize, output, size, result)
        }
    }

    /// The WebP quality used when none is given: 75, `cwebp`'s default.
    public static let defaultWebPQuality = 75

    /// The longest side a WebP may have: libwebp's limit (`WEBP_MAX_DIMENSION`), 16,383 pixels.
    public static let maximumWebPSide = 16_383

    /// Encodes the image as WebP: lossy (VP8) at `quality`, or lossless (VP8L).
    ///
    /// Alpha is kept either way: in a lossy file it is compressed losslessly beside the lossy
    /// colour. Lossless keeps every pixel, the colour under fully transparent pixels too. Gray
    /// images are encoded as RGB (WebP has no gray), so they decode as ``PixelFormat/rgb8`` (or
    /// ``PixelFormat/rgba8`` with alpha; a gray image's profile is then applied first). Its
    /// ``colourProfile`` (if any) goes in an `ICCP` chunk.
    ///
    /// ```swift
    /// let small = try photo.webpData(quality: 80)
    /// let exact = try logo.webpData(lossless: true)
    /// ```
    ///
    /// - Parameters:
    ///   - quality: 1 (smallest) to 100 (best); default ``defaultWebPQuality``. Checked but not used
    ///     when `lossless` is true (lossless uses libwebp's default effort).
    ///   - lossless: Whether to encode every pixel exactly; default `false`.
    /// - Returns: A complete WebP file (RIFF, a `VP8 `, `VP8L` or, with lossy alpha, `VP8X` file).
    /// - Throws: ``ImageError/invalidQuality(_:)`` outside 1...100, ``ImageError/encodingFailed(_:message:)``
    ///   with libwebp's error (for example a side over ``maximumWebPSide``).
    public func webpData(quality: Int = Image.defaultWebPQuality, lossless: Bool = false) throws(ImageError) -> Data {
        guard (1...100).contains(quality) else { throw .invalidQuality(quality) }
        guard width <= Self.maximumWebPSide, height <= Self.maximumWebPSide else {
            throw .encodingFailed(
                .webp, message: "\(width) x \(height) has a side over WebP's limit of \(Self.maximumWebPSide)")
        }
        let color = format.isColor ? self : converted(to: hasAlpha ? .rgba8 : .rgb8)
        return try color.encode(.webp) { pixels, icc, iccSize, output, size, result in
            hoard_webp_encode(
                pixels, UInt32(color.width), UInt32(color.height), UInt32(color.format.channelCount),
                Int32(quality), lossless ? 1 : 0, icc, iccSize, output, size, result)
        }
    }

    /// The AVIF quality used when none is given: 60, what image servers commonly default to for AVIF.
    public static let defaultAVIFQuality = 60

    /// The libaom speed used when none is given: 8 of 0 (slowest) to 10, for images encoded while
    /// a client waits (see the AVIF rows in `Benchmarks/RESULTS.md`).
    public static let defaultAVIFSpeed = 8

    /// Encodes the image as AVIF: AV1 by libaom, YUV 4:2:0, one thread.
    ///
    /// Alpha is kept (an auxiliary alpha image at the same quality). Gray images are encoded as
    /// colour. Its ``colourProfile`` (if any) goes in the `colr` box.
    ///
    /// ```swift
    /// let small = try photo.avifData(quality: 60)
    /// ```
    ///
    /// - Parameters:
    ///   - quality: 1 (smallest) to 100 (best), libavif's scale; default ``defaultAVIFQuality``.
    ///   - speed: 0 (slowest, smallest) to 10 (fastest); default ``defaultAVIFSpeed``.
    /// - Returns: A complete AVIF file.
    /// - Throws: ``ImageError/invalidQuality(_:)`` outside 1...100, ``ImageError/invalidValue(_:)``
    ///   for a speed outside 0...10, ``ImageError/encodingFailed(_:message:)`` with libavif's error.
    public func avifData(quality: Int = Image.defaultAVIFQuality, speed: Int = Image.defaultAVIFSpeed)
        throws(ImageError) -> Data
    {
        guard (1...100).contains(quality) else { throw .invalidQuality(quality) }
        guard (0...10).contains(speed) else {
            throw .invalidValue(InvalidValueError(field: "speed", value: "\(speed)", requirement: "0 to 10"))
        }
        let color = format.isColor ? self : converted(to: hasAlpha ? .rgba8 : .rgb8)
        return try color.encode(.avif) { pixels, icc, iccSize, output, size, result in
            hoard_avif_encode(
                pixels, UInt32(color.width), UInt32(color.height), UInt32(color.format.channelCount),
                Int32(quality), Int32(speed), icc, iccSize, output, size, result)
        }
    }

    /// Runs one C encoder, with the profile's bytes (or NULL), and hands its malloc'd buffer to
    /// `Data` without copying.
    private func encode(
        _ format: ImageFormat,
        _ call: (
            UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            UnsafeMutablePointer<Int>, UnsafeMutablePointer<hoard_codec_result>
        ) -> Int32
    ) throws(ImageError) -> Data {
        guard width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw .encodingFailed(format, message: "\(width) x \(height) is too large to encode")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var result = hoard_codec_result()
        let status = pixels.withUnsafeBufferPointer { pixels in
            guard let icc = colourProfile?.bytes else {
                return call(pixels.baseAddress, nil, 0, &output, &size, &result)
            }
            return icc.withUnsafeBufferPointer { profile in
                call(pixels.baseAddress, profile.baseAddress, profile.count, &output, &size, &result)
            }
        }
        guard status == Int32(HOARD_CODEC_OK.rawValue), let output else {
            throw .encodingFailed(format, message: result.messageText)
        }
        return Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in hoard_codec_free(pointer) })
    }
}
