extension Image {
    /// Returns the image scaled down so that its longest side is at most `box`, aspect ratio kept.
    ///
    /// Images already within the box are returned unchanged (never enlarged). Pixels with alpha
    /// are premultiplied while filtering, so transparent neighbours do not darken edges.
    ///
    /// ```swift
    /// let thumbnail = photo.resized(toFit: 256)   // 4000 x 3000 -> 256 x 192
    /// ```
    ///
    /// - Parameters:
    ///   - box: The longest side allowed, at least 1.
    ///   - filter: The resampling kernel; default ``ResamplingFilter/lanczos3``.
    /// - Returns: The resized image (at least 1 x 1).
    /// - Complexity: O(input pixels x kernel width), two separable passes.
    public func resized(toFit box: Int, filter: ResamplingFilter = .lanczos3) -> Image {
        precondition(box > 0, "resized(toFit:) needs a box of at least 1 pixel")
        let longest = max(width, height)
        guard longest > box else { return self }
        let scale = Double(box) / Double(longest)
        let newWidth = width == longest ? box : max(1, Int((Double(width) * scale).rounded()))
        let newHeight = height == longest ? box : max(1, Int((Double(height) * scale).rounded()))
        return resized(width: newWidth, height: newHeight, filter: filter)
    }

    /// Returns the image resampled to exactly `width` x `height` (up or down).
    ///
    /// - Parameters:
    ///   - width: The new width, at least 1.
    ///   - height: The new height, at least 1.
    ///   - filter: The resampling kernel; default ``ResamplingFilter/lanczos3``.
    /// - Returns: The resampled image, in the same pixel format.
    /// - Complexity: O(input pixels x kernel width), two separable passes.
    public func resized(width: Int, height: Int, filter: ResamplingFilter = .lanczos3) -> Image {
        precondition(width > 0 && height > 0, "resized(width:height:) needs a positive size")
        guard width != self.width || height != self.height else { return self }
        let resampler = Resampler(
            source: self,
            horizontal: .init(inputSize: self.width, outputSize: width, filter: filter),
            vertical: .init(inputSize: self.height, outputSize: height, filter: filter))
        return Image(unchecked: width, height: height, format: format, pixels: resampler.run())
    }
}
