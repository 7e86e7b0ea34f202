import HoardCore
import HoardSystem

extension Image {
    /// Returns the image scaled down so that its longest side is at most `box`, aspect ratio kept.
    ///
    /// Images already within the box are returned unchanged (never enlarged). The short side is
    /// rounded as Pillow's `Image.thumbnail` rounds it: of the floor and the ceiling of the exact
    /// short side, the one whose aspect ratio is closer to the original's, at least 1. A 2268 x 1512
    /// photo fitted into 256 is 256 x 171 here, in Pillow and in `vipsthumbnail`.
    /// Pixels with alpha are premultiplied while filtering, so transparent neighbours do not
    /// darken edges.
    ///
    /// ```swift
    /// let thumbnail = try photo.resized(toFit: 256)   // 4000 x 3000 -> 256 x 192
    /// ```
    ///
    /// - Parameters:
    ///   - box: The longest side allowed, at least 1.
    ///   - filter: The resampling kernel; default ``ResamplingFilter/lanczos3``.
    /// - Returns: The resized image (at least 1 x 1).
    /// - Throws: ``ImageError/invalidValue(_:)`` naming `box` when it is less than 1.
    /// - Complexity: O(input pixels x kernel width), two separable passes.
    public func resized(toFit box: Int, filter: ResamplingFilter = .lanczos3) throws(ImageError) -> Image {
        guard let size = try Self.fittingSize(width: width, height: height, box: box) else { return self }
        // Smaller than this image: no pixel limit to check.
        return resampled(width: size.width, height: size.height, filter: filter)
    }

    /// Returns the image resampled to exactly `width` x `height` (up or down).
    ///
    /// ```swift
    /// let banner = try photo.resized(width: 1200, height: 300, filter: .catmullRom)  // aspect not kept
    /// ```
    ///
    /// - Parameters:
    ///   - width: The new width, at least 1.
    ///   - height: The new height, at least 1.
    ///   - filter: The resampling kernel; default ``ResamplingFilter/lanczos3``.
    /// - Returns: The resampled image, in the same pixel format.
    /// - Throws: ``ImageError/invalidValue(_:)`` naming `width` or `height` when it is less than 1,
    ///   or naming `width x height` when an enlargement would have more pixels than
    ///   ``DecodingOptions/defaultMaximumPixelCount`` (64 megapixels) and than this image (a
    ///   reduction is always allowed).
    /// - Complexity: O(input pixels x kernel width), two separable passes.
    public func resized(width: Int, height: Int, filter: ResamplingFilter = .lanczos3) throws(ImageError) -> Image {
        try Self.checkSize(width: width, height: height, allowing: self.width * self.height)
        return resampled(width: width, height: height, filter: filter)
    }

    /// ``resized(width:height:filter:)`` for a size already checked: both sides at least 1, and
    /// a pixel count the caller accounts for (a thumbnail is no larger than its source's header
    /// declared, which the decoding limit allowed).
    func resampled(width: Int, height: Int, filter: ResamplingFilter) -> Image {
        precondition(width > 0 && height > 0, "resampled(width:height:filter:) needs a checked size")
        guard width != self.width || height != self.height else { return self }
        let resampler = Resampler(
            source: self,
            horizontal: .init(inputSize: self.width, outputSize: width, filter: filter),
            vertical: .init(inputSize: self.height, outputSize: height, filter: filter))
        return Image(unchecked: width, height: height, format: format, pixels: resampler.run(), colourProfile: colourProfile)
    }

    /// The size an image of `width` x `height` takes when fitted into a square `box`, or `nil`
    /// when it fits already: Pillow's `Image.thumbnail` rounding.
    ///
    /// The long side becomes `box`. Of the floor and the ceiling of the exact short side, the one
    /// whose aspect ratio is closer to the original's is taken (the floor on a tie), never less
    /// than 1. Pillow measures "closer" as `|aspect - width / height|` with the long side fixed,
    /// which for a landscape image is not plain rounding: 8 x 3 into 4 gives 4 x 2, though the
    /// exact height is 1.5, and 3 x 8 into 4 gives 1 x 4. Same arithmetic, same doubles, same
    /// results as Pillow (`preserve_aspect_ratio` and `round_aspect` in `Image.py`).
    ///
    /// ```swift
    /// try Image.fittingSize(width: 2268, height: 1512, box: 256)  // (256, 171)
    /// ```
    ///
    /// - Parameters:
    ///   - width: The image's width, at least 1.
    ///   - height: The image's height, at least 1.
    ///   - box: The longest side allowed, at least 1.
    /// - Returns: The new size, or `nil` when neither side exceeds `box`.
    /// - Throws: ``ImageError/invalidValue(_:)`` naming `box`, `width` or `height` when it is less than 1.
    static func fittingSize(width: Int, height: Int, box: Int) throws(ImageError) -> (width: Int, height: Int)? {
        try check(box, atLeast: 1, "box")
        try check(width, atLeast: 1, "width")
        try check(height, atLeast: 1, "height")
        guard width > box || height > box else { return nil }
        let aspect = Double(width) / Double(height)
        let side = Double(box)
        if 1 >= aspect {
            // Portrait or square: the height is the box; Pillow keys on |aspect - n / box|.
            let newWidth = roundAspect(side * aspect) { abs(aspect - Double($0) / side) }
            return (newWidth, box)
        }
        // Landscape: the width is the box; Pillow keys on |aspect - box / n| (0 for n = 0).
        let newHeight = roundAspect(side / aspect) { $0 == 0 ? 0 : abs(aspect - side / Double($0)) }
        return (box, newHeight)
    }

    // MARK: - Private

    /// Pillow's `round_aspect`: the floor or the ceiling of `number`, whichever `key` scores lower
    /// (the floor on a tie), at least 1.
    private static func roundAspect(_ number: Double, key: (Int) -> Double) -> Int {
        let floor = Int(number.rounded(.down))
        let ceiling = Int(number.rounded(.up))
        return max(key(ceiling) < key(floor) ? ceiling : floor, 1)
    }

    /// Checks a requested output size: both sides at least 1, and no more pixels than the default
    /// decoding limit unless the source had as many (`allowing`).
    private static func checkSize(width: Int, height: Int, allowing sourcePixelCount: Int) throws(ImageError) {
        try check(width, atLeast: 1, "width")
        try check(height, atLeast: 1, "height")
        let limit = max(DecodingOptions.defaultMaximumPixelCount, sourcePixelCount)
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= limit else {
            throw .invalidValue(
                InvalidValueError(
                    field: "width x height", value: "\(width) x \(height)", requirement: "at most \(limit) pixels"))
        }
    }

    private static func check(_ value: Int, atLeast minimum: Int, _ field: String) throws(ImageError) {
        do {
            try InvalidValueError.check(value, atLeast: minimum, field)
        } catch {
            throw .invalidValue(error)
        }
    }
}
