import CHoardCodecs
import Foundation

extension Image {
    /// The JPEG quality used when none is given: 90.
    public static let defaultJPEGQuality = 90

    /// Encodes the image as PNG, keeping every pixel exactly (8 bits per channel, all four formats).
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
        return try encode(.png) { pixels, output, size, result in
            hoard_png_encode(
                pixels, UInt32(width), UInt32(height), UInt32(format.channelCount),
                Int32(compressionLevel), output, size, result)
        }
    }

    /// Encodes the image as a baseline JPEG (4:2:0 chroma subsampling for colour).
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
        return try opaque.encode(.jpeg) { pixels, output, size, result in
            hoard_jpeg_encode(
                pixels, UInt32(opaque.width), UInt32(opaque.height),
                UInt32(opaque.format.channelCount), Int32(quality), output, size, result)
        }
    }

    /// Runs one C encoder and hands its malloc'd buffer to `Data` without copying.
    private func encode(
        _ format: ImageFormat,
        _ call: (
            UnsafePointer<UInt8>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            UnsafeMutablePointer<Int>, UnsafeMutablePointer<hoard_codec_result>
        ) -> Int32
    ) throws(ImageError) -> Data {
        guard width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw .encodingFailed(format, message: "\(width) x \(height) is too large to encode")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var result = hoard_codec_result()
        let status = pixels.withUnsafeBufferPointer { call($0.baseAddress, &output, &size, &result) }
        guard status == Int32(HOARD_CODEC_OK.rawValue), let output else {
            throw .encodingFailed(format, message: result.messageText)
        }
        return Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in hoard_codec_free(pointer) })
    }
}
