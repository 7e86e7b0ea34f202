import Foundation
import HoardCore

/// A decoded raster image: 8 bits per channel, tightly packed rows.
///
/// `Image` is a value type: copies share storage until one of them changes. It decodes PNG, JPEG,
/// WebP, GIF and AVIF (the format is sniffed from the bytes, never taken from a file name),
/// encodes PNG and JPEG, and resizes with a real resampling filter.
///
/// ```swift
/// let photo = try Image(data: jpegBytes)                 // EXIF orientation applied
/// let thumbnail = try photo.resized(toFit: 256)          // longest side 256 px
/// let bytes = try thumbnail.jpegData(quality: 85)
/// ```
public struct Image: Sendable, Equatable {
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int
    /// How each pixel is laid out in ``pixels``.
    public let format: PixelFormat
    /// Row-major pixels, `width * format.channelCount` bytes per row, no padding between rows.
    public let pixels: [UInt8]
    /// The colour space ``pixels`` are in, when it is not sRGB: set by decoding with
    /// ``ColourHandling/keep``, kept by resizing and orientation, embedded by the encoders, and
    /// removed by ``convertedToSRGB()``. `nil` means sRGB.
    public let colourProfile: ColourProfile?

    /// Creates an image from raw pixels.
    ///
    /// - Parameters:
    ///   - width: The number of columns, at least 1.
    ///   - height: The number of rows, at least 1.
    ///   - format: The channel layout of `pixels`.
    ///   - pixels: Exactly `width * height * format.channelCount` bytes, row by row.
    ///   - colourProfile: The colour space of `pixels`, or `nil` for sRGB: a gray profile for gray
    ///     formats, an RGB one for colour formats.
    /// - Throws: ``ImageError/invalidDimensions(width:height:)`` when a side is not positive,
    ///   ``ImageError/pixelCountMismatch(expected:actual:)`` when `pixels` has the wrong length, and
    ///   ``ImageError/invalidColourProfile(message:)`` for a profile of another colour space.
    public init(width: Int, height: Int, format: PixelFormat, pixels: [UInt8], colourProfile: ColourProfile? = nil)
        throws
    {
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).overflow == false else {
            throw ImageError.invalidDimensions(width: width, height: height)
        }
        let (expected, overflow) = (width * height).multipliedReportingOverflow(by: format.channelCount)
        guard !overflow, pixels.count == expected else {
            throw ImageError.pixelCountMismatch(expected: overflow ? Int.max : expected, actual: pixels.count)
        }
        if let colourProfile, !colourProfile.describes(format) {
            throw ImageError.invalidColourProfile(
                message: "a \(colourProfile.colourSpace) profile cannot describe \(format) pixels")
        }
        self.init(unchecked: width, height: height, format: format, pixels: pixels, colourProfile: colourProfile)
    }

    /// Creates an image whose invariants the caller has already established.
    init(unchecked width: Int, height: Int, format: PixelFormat, pixels: [UInt8], colourProfile: ColourProfile? = nil) {
        assert(width > 0 && height > 0 && pixels.count == width * height * format.channelCount)
        assert(colourProfile.map { $0.describes(format) } ?? true)
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
        self.colourProfile = colourProfile
    }

    /// Whether the pixels carry an alpha channel (``PixelFormat/grayAlpha8`` or ``PixelFormat/rgba8``).
    public var hasAlpha: Bool { format.hasAlpha }

    /// The number of bytes in one row of ``pixels``.
    public var bytesPerRow: Int { width * format.channelCount }
}
