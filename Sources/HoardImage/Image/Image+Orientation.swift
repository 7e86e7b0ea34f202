import HoardCore

extension Image {
    /// How stored pixels must be turned to appear upright: the EXIF/TIFF orientation values 1-8.
    public enum Orientation: Int, Sendable, Hashable, CaseIterable {
        /// 1: stored upright.
        case up = 1
        /// 2: mirrored left to right.
        case upMirrored = 2
        /// 3: rotated 180°.
        case down = 3
        /// 4: mirrored top to bottom.
        case downMirrored = 4
        /// 5: mirrored along the main diagonal (transposed).
        case leftMirrored = 5
        /// 6: must be rotated 90° clockwise to be upright.
        case right = 6
        /// 7: mirrored along the anti-diagonal (transversed).
        case rightMirrored = 7
        /// 8: must be rotated 90° counter-clockwise to be upright.
        case left = 8

        /// Whether turning upright swaps width and height.
        public var swapsDimensions: Bool { rawValue >= 5 }
    }

    /// Returns the image turned upright from the given stored orientation.
    ///
    /// - Parameter orientation: The orientation the pixels are stored in.
    /// - Returns: `self` for ``Orientation/up``, else a transformed copy (width and height swapped
    ///   for orientations 5-8).
    /// - Complexity: O(pixels).
    public func applyingOrientation(_ orientation: Orientation) -> Image {
        guard orientation != .up else { return self }
        let (outWidth, outHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        let channels = format.channelCount
        let (w, h) = (width, height)
        // For an output pixel (x, y), the stored pixel it comes from.
        let source: (Int, Int) -> (Int, Int) =
            switch orientation {
            case .up: { x, y in (x, y) }
            case .upMirrored: { x, y in (w - 1 - x, y) }
            case .down: { x, y in (w - 1 - x, h - 1 - y) }
            case .downMirrored: { x, y in (x, h - 1 - y) }
            case .leftMirrored: { x, y in (y, x) }
            case .right: { x, y in (y, h - 1 - x) }
            case .rightMirrored: { x, y in (w - 1 - y, h - 1 - x) }
            case .left: { x, y in (w - 1 - y, x) }
            }
        let output = [UInt8](unsafeUninitializedCapacity: pixels.count) { out, initialized in
            pixels.withUnsafeBufferPointer { input in
                var index = 0
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy) = source(x, y)
                        let from = (sy * w + sx) * channels
                        for c in 0..<channels { out[index + c] = input[from + c] }
                        index += channels
                    }
                }
            }
            initialized = pixels.count
        }
        return Image(unchecked: outWidth, height: outHeight, format: format, pixels: output, colourProfile: colourProfile)
    }
}

extension Image.Orientation {
    /// The orientation that turns stored pixels the way HEIF's transform properties say: `irot`
    /// first (quarter turns anticlockwise), then `imir` (ISO/IEC 23008-12, 6.5.10 and 6.5.12).
    ///
    /// ```swift
    /// Image.Orientation(quarterTurnsAnticlockwise: 3, mirrorAxis: nil)  // .right: 90° clockwise
    /// ```
    ///
    /// - Parameters:
    ///   - turns: `irot`'s angle in quarter turns anticlockwise; only its value modulo 4 counts.
    ///   - mirrorAxis: `imir`'s axis: 0 exchanges top and bottom, 1 exchanges left and right,
    ///     `nil` for no mirroring.
    init(quarterTurnsAnticlockwise turns: Int, mirrorAxis: Int?) {
        let quarter = ((turns % 4) + 4) % 4
        switch mirrorAxis {
        case nil: self = [.up, .left, .down, .right][quarter]
        // Left and right exchanged after the turn.
        case 1: self = [.upMirrored, .rightMirrored, .downMirrored, .leftMirrored][quarter]
        // Top and bottom exchanged: the same as left and right after a further half turn.
        default: self = [.downMirrored, .leftMirrored, .upMirrored, .rightMirrored][quarter]
        }
    }
}
