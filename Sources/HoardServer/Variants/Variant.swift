import Foundation
import Hoard
import HoardImage

/// One output of one source: its cache key and how it is made.
///
/// A square `fit` box with nothing else asked is the tool's thumbnail: the key is the
/// `ThumbnailKey` that `hoard thumbnails --size` uses for the same source, format and quality, so
/// a thumbnail either made is served or written by the other without work. Every other rendering
/// adds its geometry in output pixels to that key (``renderingKey(_:)``), so that two spellings
/// of one rendering (`w:300/h:200/fit:fill` and `rs:fill-down:300:200`, `w:256/dpr:2` and
/// `w:512`) share a variant.
package struct Variant: Sendable {
    /// What is made from the source.
    enum Product: Sendable {
        /// An image, encoded as the key's format says.
        case image
        /// The source's `/info`: its facts and ThumbHash as JSON (``SourceInfo``).
        case info
    }

    /// What is made from the source.
    let product: Product
    /// The tool's key for the box's longer side.
    package let thumbnailKey: ThumbnailKey
    /// The key the bytes are cached under.
    package let cacheKey: String
    /// What is asked of the source.
    package let options: ProcessingOptions

    /// The variant of `options` for the source named `sourceName` (the tool's source name: the
    /// URL, or the `file://` URL of a local file with its fingerprint), encoded as `format`.
    init(
        options: ProcessingOptions, format: ThumbnailKey.Format, sourceName: String,
        fingerprint: ThumbnailKey.FileFingerprint?
    ) throws(ServeError) {
        let baseKey: ThumbnailKey
        do {
            baseKey = try ThumbnailKey(
                source: sourceName, fingerprint: fingerprint, size: max(options.outputWidth, options.outputHeight, 1),
                format: format,
                quality: options.quality ?? (format == .avif ? Image.defaultAVIFQuality : ThumbnailKey.defaultQuality))
        } catch {
            throw .badOptions("\(error)")
        }
        try self.init(options: options, baseKey: baseKey)
    }

    /// The variant of `options` for the source, format, quality, filter, colour handling and decode
    /// scale of `baseKey` (its size is replaced by the box's longer side): what `hoard thumbnails`
    /// makes for a box, a fill or a gravity. A square fit box is `baseKey` itself.
    package init(options: ProcessingOptions, baseKey: ThumbnailKey) throws(ServeError) {
        self.options = options
        product = .image
        do {
            thumbnailKey = try ThumbnailKey(
                source: baseKey.source, fingerprint: baseKey.fingerprint,
                size: max(options.outputWidth, options.outputHeight, 1), format: baseKey.format,
                quality: baseKey.quality, filter: baseKey.filter, colour: baseKey.colour,
                decodeScale: baseKey.decodeScale)
        } catch {
            throw .badOptions("\(error)")
        }
        cacheKey = Self.isToolThumbnail(options) ? thumbnailKey.key : thumbnailKey.key + " " + Self.renderingKey(options)
    }

    /// The `/info` of the source named `sourceName`: cached under the key of its 100 px PNG
    /// thumbnail (what the ThumbHash is made from) and `info=v1`.
    init(infoOf sourceName: String, fingerprint: ThumbnailKey.FileFingerprint?) throws(ServeError) {
        product = .info
        options = ProcessingOptions(width: SourceInfo.hashBox)
        do {
            thumbnailKey = try ThumbnailKey(
                source: sourceName, fingerprint: fingerprint, size: SourceInfo.hashBox, format: .png,
                quality: ThumbnailKey.defaultQuality)
        } catch {
            throw .badOptions("\(error)")
        }
        cacheKey = thumbnailKey.key + " info=v1"
    }

    /// The type the cache stores the bytes as: an image, or the info's JSON as data.
    var storedType: any Cachable.Type { product == .image ? Image.self : Data.self }

    /// Whether `options` ask for what `hoard thumbnails --size` makes: a square fit, nothing else.
    static func isToolThumbnail(_ options: ProcessingOptions) -> Bool {
        var plain = ProcessingOptions(width: options.width, height: options.height)
        plain.pixelRatio = options.pixelRatio
        plain.quality = options.quality
        plain.format = options.format
        plain.placement = options.placement  // a fit crops nothing
        plain.expires = options.expires
        return options == plain && options.fit == .fit && options.outputWidth == options.outputHeight
            && options.outputWidth > 0
    }

    /// The rendering in output pixels: every field that changes the bytes, and the cache buster.
    static func renderingKey(_ options: ProcessingOptions) -> String {
        let ratio = options.pixelRatio
        func placed(_ placement: ProcessingOptions.Placement) -> String {
            var scaled = placement
            if placement.gravity != .focusPoint {
                if abs(scaled.x) >= 1 { scaled.x = (scaled.x * ratio).rounded() }
                if abs(scaled.y) >= 1 { scaled.y = (scaled.y * ratio).rounded() }
            }
            return ImagePath.spelled(scaled)
        }
        var parts = ["box=\(options.outputWidth)x\(options.outputHeight)", "fit=\(options.fit.rawValue)"]
        let hasMinimum = options.minimumWidth > 0 || options.minimumHeight > 0
        // A fit crops nothing after scaling (unless a minimum size passes the box); a crop without
        // its own gravity uses this one.
        if options.fit != .fit || hasMinimum || (options.crop != nil && options.crop?.placement == nil) {
            parts.append("g=" + placed(options.placement))
        }
        if options.enlarges { parts.append("enlarge") }
        if let extend = options.extend { parts.append("extend=" + placed(extend)) }
        if hasMinimum {
            let width = Int((Double(options.minimumWidth) * ratio).rounded())
            let height = Int((Double(options.minimumHeight) * ratio).rounded())
            parts.append("min=\(width)x\(height)")
        }
        if let crop = options.crop {
            parts.append(
                "crop=\(ImagePath.numberText(crop.width))x\(ImagePath.numberText(crop.height))"
                    + (crop.placement.map { "@" + ImagePath.spelled($0) } ?? ""))
        }
        if let background = options.background { parts.append("bg=\(background.hex)") }
        if let blur = options.blur { parts.append("blur=\(ImagePath.numberText(blur))") }
        if let sharpen = options.sharpen { parts.append("sharpen=\(ImagePath.numberText(sharpen))") }
        if ratio != 1, options.outputWidth == 0, options.outputHeight == 0 {
            parts.append("dpr=\(ImagePath.numberText(ratio))")
        }
        if let cacheBuster = options.cacheBuster { parts.append("cb=\(cacheBuster)") }
        return parts.joined(separator: " ")
    }

    /// The encoded output made from `original`.
    ///
    /// - Throws: ``ServeError``: `notAnImage` (415) for bytes of no supported format,
    ///   `sourceTooLarge` (413) past the pixel limit, `badImage` (422) for a damaged or cut-short image.
    /// - Parameter record: Told how long decoding (with resizing) and encoding took.
    func make(
        from original: Data, maximumPixels: Int, record: (ServerMetrics.Stage, Duration) -> Void = { _, _ in }
    ) throws(ServeError) -> Data {
        // What the header declares, refused before any decode: the library's decode-time scaling
        // would let a 3.6-gigapixel JPEG through at 1/8 scale, but a server's memory is bounded by
        // its limits, not by what a file claims.
        if let size = Image.uprightSize(of: original), Self.pixels(size.width, size.height) > maximumPixels {
            throw .sourceTooLarge("\(size.width)x\(size.height) is more than the limit of \(maximumPixels) pixels")
        }
        if let size = Image.uprightSize(of: original) {
            let plan = RenderPlan(width: size.width, height: size.height, options: options)
            let taps = Self.taps(options.blur) + Self.taps(options.sharpen)
            if taps > 0, Self.pixels(plan.kept.width, plan.kept.height) > Self.maximumFilterWork / taps {
                throw .badOptions("bl/sh: a sigma that large on \(plan.kept.width)x\(plan.kept.height) pixels is more work than allowed")
            }
        }
        do {
            var started = ContinuousClock.now
            if product == .info { return try SourceInfo(of: original, maximumPixels: maximumPixels).json() }
            let (image, warnings) = try render(original, maximumPixels: maximumPixels)
            record(.decode, ContinuousClock.now - started)
            // A cut-short image decodes partly: never served, or cached, as if whole.
            if warnings.contains(Image.truncationWarning) { throw ServeError.badImage("the image is cut short") }
            started = ContinuousClock.now
            let encoded = try thumbnailKey.encoded(image)
            record(.encode, ContinuousClock.now - started)
            return encoded
        } catch let error as ServeError {
            throw error
        } catch let error as ImageError {
            throw Self.serveError(error)
        } catch {
            throw .badImage("\(error)")
        }
    }

    /// The rendered image and the decoder's warnings (among them ``HoardImage/Image/truncationWarning``),
    /// not yet encoded: for a caller that keeps the image of a cut-short source (the tool does).
    package func rendering(from original: Data, maximumPixels: Int) throws -> (Image, [String]) {
        try render(original, maximumPixels: maximumPixels)
    }

    private func render(_ original: Data, maximumPixels: Int) throws -> (Image, [String]) {
        if Self.isToolThumbnail(options) {
            return try thumbnailKey.thumbnailReportingWarnings(from: original, maximumPixelCount: maximumPixels)
        }
        var decoding = thumbnailKey.decodingOptions(maximumPixelCount: maximumPixels)
        // The plan needs the upright size: from the header, or (a format without one) from a full decode.
        let upright = Image.uprightSize(of: original)
        if let upright {
            let plan = RenderPlan(width: upright.width, height: upright.height, options: options)
            // Decoded no smaller than the scaled crop needs (the decoder's scale rule keeps a margin).
            let scale = max(
                Double(plan.scaledWidth) / Double(plan.source.width),
                Double(plan.scaledHeight) / Double(plan.source.height))
            let longest = max(upright.width, upright.height)
            decoding.targetSize = scale < 1 ? max(1, Int((Double(longest) * scale).rounded(.up))) : nil
        }
        let (decoded, warnings) = try Image.decodeReportingWarnings(original, options: decoding)
        let fullWidth = upright?.width ?? decoded.width
        let fullHeight = upright?.height ?? decoded.height
        let plan = RenderPlan(width: fullWidth, height: fullHeight, options: options)
        // The source's crop in decoded pixels.
        let factorX = Double(decoded.width) / Double(fullWidth)
        let factorY = Double(decoded.height) / Double(fullHeight)
        var cropX = min(decoded.width - 1, Int((Double(plan.source.x) * factorX).rounded()))
        var cropY = min(decoded.height - 1, Int((Double(plan.source.y) * factorY).rounded()))
        let cropWidth = max(1, min(decoded.width - cropX, Int((Double(plan.source.width) * factorX).rounded())))
        let cropHeight = max(1, min(decoded.height - cropY, Int((Double(plan.source.height) * factorY).rounded())))
        if let crop = options.crop, (crop.placement ?? options.placement).gravity == .smart {
            (cropX, cropY) = decoded.smartCropOrigin(width: cropWidth, height: cropHeight)
        }
        var image = try decoded.cropped(x: cropX, y: cropY, width: cropWidth, height: cropHeight)
        if image.width != plan.scaledWidth || image.height != plan.scaledHeight {
            image = try image.resized(width: plan.scaledWidth, height: plan.scaledHeight, filter: thumbnailKey.filter)
        }
        var kept = (x: plan.kept.x, y: plan.kept.y)
        if options.placement.gravity == .smart {
            kept = image.smartCropOrigin(width: plan.kept.width, height: plan.kept.height)
        }
        image = try image.cropped(x: kept.x, y: kept.y, width: plan.kept.width, height: plan.kept.height)
        if let sigma = options.blur { image = try image.blurred(sigma: sigma) }
        if let sigma = options.sharpen { image = try image.sharpened(sigma: sigma) }
        let colour = options.background.map { (red: $0.red, green: $0.green, blue: $0.blue) }
        if let canvas = plan.canvas {
            image = try image.placed(onWidth: canvas.width, height: canvas.height, x: canvas.x, y: canvas.y, colour: colour)
        }
        if let colour { image = image.flattened(onto: colour) }
        return (image, warnings)
    }

    /// The most pixels × filter taps a variant's blur and sharpen may take (a few seconds of one core).
    static let maximumFilterWork = 1 << 30

    /// The taps of one pass of a Gaussian of `sigma` (none without one).
    private static func taps(_ sigma: Double?) -> Int {
        guard let sigma else { return 0 }
        let radius = Int((3 * sigma).rounded(.up))
        return 2 * radius + 1
    }

    /// `width × height`, or `Int.max` when that overflows.
    private static func pixels(_ width: Int, _ height: Int) -> Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    private static func serveError(_ error: ImageError) -> ServeError {
        switch error {
        case .unrecognizedFormat: .notAnImage("the source is not a PNG, JPEG, WebP, GIF or AVIF image")
        case .tooLarge(_, let width, let height, let limit):
            .sourceTooLarge("\(width)x\(height) is more than the limit of \(limit) pixels")
        default: .badImage("\(error)")
        }
    }
}
