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
    /// How the image meets the box (imgproxy's resizing types).
    public enum Fit: String, Sendable, CaseIterable {
        /// Scaled to fit inside the box, keeping its proportions.
        case fit
        /// Scaled to cover the box, keeping its proportions, then cropped to it around the
        /// gravity; not enlarged, a source smaller than the box is cropped to the box where it
        /// is larger and kept whole where it is smaller.
        case fill
        /// As ``fill``, but a source smaller than the box is cropped to the box's proportions.
        /// Hoard's own `fit:fill` reads as this.
        case fillDown = "fill-down"
        /// Scaled to the box's width and height, not keeping its proportions.
        case force
        /// ``fill`` when the source and the box are both portrait or both landscape, else ``fit``.
        case auto
    }

    /// Which part of the image a crop keeps, or where an extended image sits on its canvas.
    /// Hoard's spellings are the raw values; imgproxy's (`ce`, `no`, `so`, `ea`, `we`, `noea`,
    /// `nowe`, `soea`, `sowe`, `sm`, `fp`) are read too.
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
        /// Where the detail is (`sm`).
        case smart = "sm"
        /// A point given as fractions of the width and height (`fp:X:Y`), which the crop centres on.
        case focusPoint = "fp"
    }

    /// A gravity with its offsets: pixels when at least 1 (times the pixel ratio), fractions of
    /// the image's side when below 1; for ``Gravity/focusPoint``, the point (0 to 1).
    public struct Placement: Sendable, Hashable {
        /// The gravity.
        public var gravity: Gravity
        /// The horizontal offset (inwards from the gravity's edge), or the focus point's x.
        public var x: Double
        /// The vertical offset, or the focus point's y.
        public var y: Double

        /// A placement by `gravity`, offset by `x` and `y`.
        public init(_ gravity: Gravity = .center, x: Double = 0, y: Double = 0) {
            self.gravity = gravity
            self.x = x
            self.y = y
        }
    }

    /// The part of the source kept before resizing (imgproxy's `crop`): a side of at least 1 is
    /// pixels, below 1 a fraction of the source's side, 0 the whole side.
    public struct Crop: Sendable, Hashable {
        /// The width kept.
        public var width: Double
        /// The height kept.
        public var height: Double
        /// Where; `nil` for the options' own ``ProcessingOptions/placement``.
        public var placement: Placement?

        /// A crop of `width` × `height` placed by `placement`.
        public init(width: Double, height: Double, placement: Placement? = nil) {
            self.width = width
            self.height = height
            self.placement = placement
        }
    }

    /// An opaque colour (imgproxy's `background`).
    public struct Colour: Sendable, Hashable {
        /// The channels, 0-255.
        public var red, green, blue: UInt8

        /// The colour of `red`, `green` and `blue`.
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// `rrggbb`, as the key and `bg:` spell it.
        public var hex: String {
            [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    /// The output format; `auto` picks AVIF for a client that accepts it, else WebP for one that
    /// accepts that, else PNG for an image with transparency and JPEG for one without.
    public enum Format: String, Sendable, CaseIterable {
        /// AVIF or WebP for a client that accepts it, else PNG or JPEG by transparency.
        case auto
        /// JPEG at the quality.
        case jpeg
        /// PNG.
        case png
        /// WebP at the quality (lossless with transparency at quality 100).
        case webp
        /// AVIF at the quality (libaom; 60 when none is given).
        case avif
    }

    /// The largest width or height a request may ask for, in output pixels.
    public static let maximumSide = 8192
    /// The largest pixel ratio.
    public static let maximumPixelRatio = 4.0
    /// The largest blur or sharpen sigma: the image module's limit (`Image.maximumFilterSigma`),
    /// stated here so that the request model needs no image module.
    public static let maximumSigma = 100.0

    /// The box's width in CSS pixels, up to ``maximumSide``; 0 for the width the height and the
    /// source's proportions give (the source's own when both are 0).
    public var width: Int
    /// The box's height in CSS pixels; 0 as for ``width``; `nil` for a square box of ``width``
    /// (Hoard's `w:` alone, as `hoard thumbnails --size`).
    public var height: Int?
    /// How the image meets the box.
    public var fit: Fit = .fit
    /// What a crop keeps (``Fit/fill``, ``Fit/fillDown``, a ``minimumWidth`` past the box).
    public var placement = Placement()
    /// The gravity of ``placement``.
    public var gravity: Gravity {
        get { placement.gravity }
        set { placement.gravity = newValue }
    }
    /// Whether a source smaller than the box is scaled up (imgproxy's `enlarge`).
    public var enlarges = false
    /// Where an image smaller than the box sits on a canvas of the box's size; `nil` for no
    /// canvas (imgproxy's `extend`).
    public var extend: Placement?
    /// The smallest width of the result in CSS pixels, 0 for none (imgproxy's `min-width`).
    public var minimumWidth = 0
    /// The smallest height of the result in CSS pixels, 0 for none (imgproxy's `min-height`).
    public var minimumHeight = 0
    /// The part of the source kept before resizing.
    public var crop: Crop?
    /// What transparent pixels and an ``extend`` canvas become; `nil` keeps transparency (and
    /// makes a JPEG's white).
    public var background: Colour?
    /// Output pixels per CSS pixel, 1 to ``maximumPixelRatio``.
    public var pixelRatio: Double = 1
    /// JPEG, WebP and AVIF quality, 1 to 100; `nil` for the default (85, as the tool's; 60 for AVIF).
    public var quality: Int?
    /// The output format.
    public var format: Format = .auto
    /// The sigma, in output pixels, of a Gaussian blur of the result (imgproxy's `blur`); `nil` for none.
    public var blur: Double?
    /// The sigma, in output pixels, of an unsharp mask over the result (imgproxy's `sharpen`); `nil` for none.
    public var sharpen: Double?
    /// Text that changes the URL, and so the cached variant, without changing the rendering
    /// (imgproxy's `cachebuster`).
    public var cacheBuster: String?
    /// When the URL stops being answered (404), as a Unix time (imgproxy's `expires`).
    public var expires: Int?

    /// Options for a `width` × `width` box (or `width` × `height`) with every other field at its default.
    public init(width: Int, height: Int? = nil) {
        self.width = width
        self.height = height
    }

    /// The box's width in output pixels (0 when ``width`` is 0).
    public var outputWidth: Int { Self.scaled(width, by: pixelRatio) }

    /// The box's height in output pixels (0 when ``height`` is 0).
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
        for (name, value) in [("w", width), ("h", height ?? width), ("mw", minimumWidth), ("mh", minimumHeight)] {
            guard value >= 0, Self.scaled(value, by: pixelRatio) <= Self.maximumSide else {
                throw .badOptions("\(name): \(value) at dpr \(pixelRatio) is not a size from 0 to \(Self.maximumSide) pixels")
            }
        }
        for (name, placement) in [("g", placement), ("ex", extend ?? Placement()), ("c", crop?.placement ?? Placement())] {
            try Self.validate(placement, name)
        }
        if extend?.gravity == .smart { throw .badOptions("ex: the smart gravity does not place a canvas") }
        if let crop {
            for side in [crop.width, crop.height] where !(side.isFinite && side >= 0 && side <= Double(Self.maximumSourceSide)) {
                throw .badOptions("c: \(side) is not a size from 0 to \(Self.maximumSourceSide)")
            }
        }
        if let cacheBuster, cacheBuster.utf8.count > 256 { throw .badOptions("cb: longer than 256 bytes") }
        for (name, sigma) in [("bl", blur), ("sh", sharpen)] {
            if let sigma, !(sigma > 0 && sigma <= Self.maximumSigma) {
                throw .badOptions("\(name): \(sigma) is not a sigma above 0 and at most \(Int(Self.maximumSigma))")
            }
        }
        if let quality, !(1...100).contains(quality) {
            throw .badOptions("q: \(quality) is not a quality from 1 to 100")
        }
    }

    /// The largest side a crop may name, in source pixels.
    static let maximumSourceSide = 1 << 20

    private static func validate(_ placement: Placement, _ name: String) throws(ServeError) {
        let (x, y) = (placement.x, placement.y)
        if placement.gravity == .focusPoint {
            guard (0...1).contains(x), (0...1).contains(y) else {
                throw .badOptions("\(name): a focus point is two fractions from 0 to 1")
            }
        } else {
            guard x.isFinite, y.isFinite, abs(x) <= Double(maximumSourceSide), abs(y) <= Double(maximumSourceSide) else {
                throw .badOptions("\(name): the offsets are not numbers up to \(maximumSourceSide)")
            }
        }
    }

    private static func scaled(_ size: Int, by ratio: Double) -> Int {
        let product = (Double(size) * ratio).rounded()
        return product < Double(Int.max) ? Int(product) : Int.max
    }
}
