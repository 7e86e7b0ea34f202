/// What a request asks of its source: the box, how the image meets it, the pixel ratio, the
/// quality and the format.
///
/// Sizes are in CSS pixels; the output's pixels are the size times ``pixelRatio``, so `w:256`
/// with `dpr:2` and `w:512` ask for the same image (and share one cache entry).
///
/// ```swift
/// var options = ProcessingOptions(width: 256)
/// options.pixelRatio = 2
/// options.outputWidth  // 512
/// ```
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image meets the box.
    public enum Fit: String, Sendable, CaseIterable {
        /// Scaled down to fit inside the box, keeping its proportions (never enlarged).
        case fit
        /// Scaled to cover the box, then cropped to it around ``Gravity``.
        case fill
    }

    /// Which part of the image a `fill` keeps.
    public enum Gravity: String, Sendable, CaseIterable {
        /// The middle.
        case center
        /// The top edge's middle.
        case north
        /// The bottom edge's middle.
        case south
        /// The right edge's middle.
        case east
        /// The left edge's middle.
        case west
        /// The top right corner (`ne`).
        case northEast = "ne"
        /// The top left corner (`nw`).
        case northWest = "nw"
        /// The bottom right corner (`se`).
        case southEast = "se"
        /// The bottom left corner (`sw`).
        case southWest = "sw"
    }

    /// The output format; `auto` picks WebP for a client that accepts it, else PNG for an image
    /// with transparency and JPEG for one without.
    public enum Format: String, Sendable, CaseIterable {
        /// WebP for a client that accepts it, else PNG or JPEG by transparency.
        case auto
        /// JPEG at the quality.
        case jpeg
        /// PNG.
        case png
        /// WebP at the quality (lossless with transparency at quality 100).
        case webp
    }

    /// The largest width or height a request may ask for, in output pixels.
    public static let maximumSide = 8192
    /// The largest pixel ratio.
    public static let maximumPixelRatio = 4.0

    /// The box's width in CSS pixels, 1 to ``maximumSide``.
    public var width: Int
    /// The box's height in CSS pixels; `nil` for a square box of ``width`` (as `hoard thumbnails --size`).
    public var height: Int?
    /// How the image meets the box.
    public var fit: Fit = .fit
    /// What a `fill` keeps.
    public var gravity: Gravity = .center
    /// Output pixels per CSS pixel, 1 to ``maximumPixelRatio``.
    public var pixelRatio: Double = 1
    /// JPEG and WebP quality, 1 to 100; `nil` for the default (85, as the tool's).
    public var quality: Int?
    /// The output format.
    public var format: Format = .auto

    /// Options for a `width` × `width` box (or `width` × `height`) with every other field at its default.
    public init(width: Int, height: Int? = nil) {
        self.width = width
        self.height = height
    }

    /// The box's width in output pixels.
    public var outputWidth: Int { Self.scaled(width, by: pixelRatio) }

    /// The box's height in output pixels.
    public var outputHeight: Int { Self.scaled(height ?? width, by: pixelRatio) }

    /// Checks every field.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` naming the first field out of range.
    public func validate() throws(ServeError) {
        guard pixelRatio.isFinite, pixelRatio >= 1, pixelRatio <= Self.maximumPixelRatio,
            (pixelRatio * 100).rounded() == pixelRatio * 100
        else {
            throw .badOptions(
                "dpr: \(pixelRatio) is not a ratio from 1 to \(Int(Self.maximumPixelRatio)) with at most two decimals")
        }
        for (name, value) in [("w", width), ("h", height ?? width)] {
            guard value >= 1, Self.scaled(value, by: pixelRatio) <= Self.maximumSide else {
                throw .badOptions("\(name): \(value) at dpr \(pixelRatio) is not a size from 1 to \(Self.maximumSide) pixels")
            }
        }
        if let quality, !(1...100).contains(quality) {
            throw .badOptions("q: \(quality) is not a quality from 1 to 100")
        }
    }

    private static func scaled(_ size: Int, by ratio: Double) -> Int {
        let product = (Double(size) * ratio).rounded()
        return product < Double(Int.max) ? Int(product) : Int.max
    }
}
