import Foundation
import HoardImage

/// One output of one source: its cache key and how it is made.
///
/// A square `fit` box is the tool's thumbnail: the key is the `ThumbnailKey` that
/// `hoard thumbnails --size` uses for the same source, format and quality, so a thumbnail either
/// made is served or written by the other without work. Other boxes add `box=W×H fit=… g=…` to
/// that key.
struct Variant: Sendable {
    /// The tool's key for the box's longer side.
    let thumbnailKey: ThumbnailKey
    /// The key the bytes are cached under.
    let cacheKey: String
    /// The box in output pixels.
    let width: Int
    let height: Int
    let fit: ProcessingOptions.Fit
    let gravity: ProcessingOptions.Gravity

    /// The variant of `options` for the source named `sourceName` (the tool's source name: the
    /// URL, or the `file://` URL of a local file with its fingerprint), encoded as `format`.
    init(
        options: ProcessingOptions, format: ThumbnailKey.Format, sourceName: String,
        fingerprint: ThumbnailKey.FileFingerprint?
    ) throws(ServeError) {
        width = options.outputWidth
        height = options.outputHeight
        fit = options.fit
        gravity = options.gravity
        do {
            thumbnailKey = try ThumbnailKey(
                source: sourceName, fingerprint: fingerprint, size: max(width, height), format: format,
                quality: options.quality ?? ThumbnailKey.defaultQuality)
        } catch {
            throw .badOptions("\(error)")
        }
        cacheKey =
            width == height && fit == .fit
            ? thumbnailKey.key
            : thumbnailKey.key + " box=\(width)x\(height) fit=\(fit.rawValue) g=\(gravity.rawValue)"
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
        do {
            var started = ContinuousClock.now
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

    private func render(_ original: Data, maximumPixels: Int) throws -> (Image, [String]) {
        let options = thumbnailKey.decodingOptions(maximumPixelCount: maximumPixels)
        switch fit {
        case .fit where width == height:
            return try thumbnailKey.thumbnailReportingWarnings(from: original, maximumPixelCount: maximumPixels)
        case .fit:
            let (image, warnings) = try Image.thumbnailReportingWarnings(
                from: original, fittingIn: max(width, height), options: options)
            let scale = min(Double(width) / Double(image.width), Double(height) / Double(image.height))
            guard scale < 1 else { return (image, warnings) }
            return (try image.resized(width: Self.scaled(image.width, scale), height: Self.scaled(image.height, scale)), warnings)
        case .fill:
            // Scaled to cover the box (never enlarged), then cropped around the gravity to the
            // box's proportions: a source smaller than the box gives the largest such crop.
            var coverSide = max(width, height)
            if let size = Image.uprightSize(of: original) {
                let scale = min(1, max(Double(width) / Double(size.width), Double(height) / Double(size.height)))
                coverSide = max(Self.scaled(size.width, scale), Self.scaled(size.height, scale))
            }
            let (image, warnings) = try Image.thumbnailReportingWarnings(from: original, fittingIn: coverSide, options: options)
            let ratio = Double(width) / Double(height)
            var cropWidth = min(width, image.width)
            var cropHeight = min(height, image.height)
            if Double(cropWidth) / Double(cropHeight) > ratio {
                cropWidth = max(1, min(cropWidth, Int((Double(cropHeight) * ratio).rounded())))
            } else {
                cropHeight = max(1, min(cropHeight, Int((Double(cropWidth) / ratio).rounded())))
            }
            let (x, y) = origin(cropWidth, cropHeight, in: image)
            return (try image.cropped(x: x, y: y, width: cropWidth, height: cropHeight), warnings)
        }
    }

    /// Where a `width` × `height` crop of `image` starts for the gravity.
    private func origin(_ width: Int, _ height: Int, in image: Image) -> (x: Int, y: Int) {
        let spareX = image.width - width
        let spareY = image.height - height
        let x: Int
        let y: Int
        switch gravity {
        case .west, .northWest, .southWest: x = 0
        case .east, .northEast, .southEast: x = spareX
        case .center, .north, .south: x = spareX / 2
        }
        switch gravity {
        case .north, .northEast, .northWest: y = 0
        case .south, .southEast, .southWest: y = spareY
        case .center, .east, .west: y = spareY / 2
        }
        return (x, y)
    }

    /// `width × height`, or `Int.max` when that overflows.
    private static func pixels(_ width: Int, _ height: Int) -> Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    private static func scaled(_ side: Int, _ scale: Double) -> Int {
        max(1, Int((Double(side) * scale).rounded()))
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
