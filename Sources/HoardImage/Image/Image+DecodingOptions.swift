import HoardCore

extension Image {
    /// How ``Image/init(data:options:)`` decodes: limits, decode-time downscaling, orientation,
    /// and how strict to be about damaged data.
    ///
    /// ```swift
    /// var options = Image.DecodingOptions()
    /// options.targetSize = 256          // let libjpeg (or libwebp) decode at a reduced scale
    /// let preview = try Image(data: bytes, options: options)
    /// ```
    public struct DecodingOptions: Sendable, Hashable {
        /// The default pixel limit: 64 megapixels.
        public static let defaultMaximumPixelCount = 64_000_000

        /// The most pixels a decode may allocate: `width * height` of the raster it makes, after
        /// decode-time scaling. Checked from the header, before any pixel memory is allocated;
        /// larger images throw ``ImageError/tooLarge(_:width:height:maximumPixelCount:)``.
        ///
        /// A JPEG decoded for a ``targetSize`` is checked at the DCT scale chosen, so an 81 MP
        /// photo thumbnailed at 256 px (decoded at 1/8, 1.3 MP) is within the default; a header
        /// that even 1/8 scale cannot bring within the limit (more than 64 times it) is refused at
        /// once, and libjpeg's own memory is capped at 8 bytes per allowed pixel (a progressive
        /// file keeps all its coefficients, 6 bytes per declared pixel at 4:4:4). PNG, GIF and AVIF
        /// have no decode-time scaling and WebP decodes whole frames, so for them the declared size
        /// is what is allocated, and what is checked.
        public var maximumPixelCount: Int = Self.defaultMaximumPixelCount

        /// The longest side the caller wants in the end, or `nil` for full size.
        ///
        /// JPEG decoding then uses libjpeg's DCT scaling (1/2, 1/4 or 1/8), picking the smallest
        /// scale whose longest side is still at least twice `targetSize` (``decodeScale``
        /// ``Image/DecodeScale/faithful``; `targetSize` itself with ``Image/DecodeScale/fast``), so
        /// the full-size raster is never allocated and the final filter still has a real reduction
        /// to make. The result is therefore between twice `targetSize` and four times it (between
        /// `targetSize` and twice it when fast), or full size when smaller; follow with
        /// ``Image/resized(toFit:filter:)`` for the exact size. A still WebP follows the same rule
        /// with any power of two (libwebp scales while decoding), and so does a GIF whose first
        /// image is opaque and covers its canvas (each pixel the mean of its block). PNG, AVIF,
        /// other GIFs and animated WebP have no such scaling and decode at full size.
        public var targetSize: Int?

        /// How far decode-time scaling may shrink an image decoded for a ``targetSize``. Default
        /// ``Image/DecodeScale/faithful``.
        public var decodeScale: DecodeScale = .faithful

        /// Whether to turn pixels upright: JPEG and WebP by their EXIF orientation (1-8), AVIF by its
        /// `irot` and `imir` properties (its `clap` crop always applies). Default `true`.
        public var appliesOrientation: Bool = true

        /// Whether JPEG data that ends early may decode (libjpeg fills the rest with gray). Default
        /// `false`: truncation throws ``ImageError/truncated(_:message:)``. The other formats always
        /// throw it (a GIF or an animated WebP cut after its first frame still decodes: nothing
        /// after the first frame is read).
        public var allowsTruncatedData: Bool = false

        /// Whether any decoder warning (for example libjpeg's "Corrupt JPEG data: extraneous bytes
        /// before marker") fails the decode. Default `false`: warnings are reported by
        /// ``Image/decodeReportingWarnings(_:options:)``.
        public var treatsWarningsAsErrors: Bool = false

        /// The most scans a progressive JPEG may have. Real files have about ten; hostile ones have
        /// thousands, each of which costs a pass over the whole image.
        public var maximumScanCount: Int = 1_000

        /// How much of a progressive JPEG a decode with a ``targetSize`` reads. Default
        /// ``Image/ProgressiveReading/exact``: only the scans the scale's pixels depend on, which
        /// gives the pixels of reading every scan. (``Image/ProgressiveReading/nearlyExact`` is
        /// what `hoard thumbnails --decode-scale fast` adds.)
        public var progressiveReading: ProgressiveReading = .exact

        /// What to do with the file's colour description (default ``Image/ColourHandling/srgb``:
        /// convert to sRGB).
        public var colour: ColourHandling = .srgb

        /// Creates options with the defaults: 64 MP limit, full size, orientation applied, strict
        /// about truncation, lenient about other warnings, colours converted to sRGB.
        public init() {}

        /// Creates options for decoding straight to a size close to `targetSize`.
        ///
        /// - Parameter targetSize: The longest side wanted after a final resize.
        public init(targetSize: Int?) {
            self.targetSize = targetSize
        }
    }
}
