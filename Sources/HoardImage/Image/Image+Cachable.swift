import Foundation
import HoardCore

extension Image: Cachable {
    /// The JPEG quality ``Image`` uses when a cache stores an opaque image: 90.
    public static let cacheJPEGQuality = 90

    /// `"Hoard.Image"`.
    public static var cacheTypeIdentifier: String { "Hoard.Image" }

    /// PNG when the image has alpha (lossless), else JPEG at ``cacheJPEGQuality`` (lossy: the value
    /// read back is close to, not equal to, the one stored), with the ``colourProfile`` embedded.
    ///
    /// - Throws: ``ImageError``.
    public func encode() throws -> Data {
        hasAlpha ? try pngData() : try jpegData(quality: Self.cacheJPEGQuality)
    }

    /// PNG when the image has alpha, else JPEG at the cache's `options.jpegQuality`.
    ///
    /// - Throws: ``ImageError``.
    public func encode(with options: CachableEncodingOptions) throws -> Data {
        hasAlpha ? try pngData() : try jpegData(quality: options.jpegQuality)
    }

    /// The pixel bytes: what the decoded image takes in memory.
    public func memoryCost(encodedByteCount: Int) -> Int {
        pixels.count
    }

    /// Decodes PNG or JPEG bytes (what ``encode()`` stores; WebP, GIF and AVIF too) with the
    /// default ``DecodingOptions`` but ``ColourHandling/keep``: an image stored with a
    /// ``colourProfile`` comes back with the same profile and values.
    ///
    /// - Throws: ``ImageError``.
    public static func decode(_ data: Data) throws -> Image {
        var options = DecodingOptions()
        options.colour = .keep
        return try Image(data: data, options: options)
    }
}
