import Foundation
import HoardCore

extension Image: Cachable {
    /// The JPEG quality ``Image`` uses when a cache stores an opaque image: 90.
    public static let cacheJPEGQuality = 90

    /// `"Hoard.Image"`.
    public static var cacheTypeIdentifier: String { "Hoard.Image" }

    /// PNG when some pixel is not opaque (lossless), else JPEG at ``cacheJPEGQuality`` (lossy: the
    /// value read back is close to, not equal to, the one stored, and without an alpha channel when
    /// the image had one that was opaque everywhere), with the ``colourProfile`` embedded.
    ///
    /// - Throws: ``ImageError``.
    public func encode() throws -> Data {
        isOpaque ? try jpegData(quality: Self.cacheJPEGQuality) : try pngData()
    }

    /// PNG when some pixel is not opaque, else JPEG at the cache's `options.jpegQuality`.
    ///
    /// - Throws: ``ImageError``.
    public func encode(with options: CachableEncodingOptions) throws -> Data {
        isOpaque ? try jpegData(quality: options.jpegQuality) : try pngData()
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
