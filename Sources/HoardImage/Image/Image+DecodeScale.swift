extension Image {
    /// How far decode-time downscaling (JPEG's DCT scaling, WebP's scaled decoding, a GIF's block
    /// means) may shrink an image decoded for a ``DecodingOptions/targetSize``: the choice behind
    /// ``DecodingOptions/decodeScale`` and `hoard thumbnails --decode-scale`.
    ///
    /// Decode-time scaling averages blocks of pixels, which aliases fine texture; the final filter
    /// (Lanczos-3 by default) only undoes that when it is left a real reduction of its own.
    ///
    /// ```swift
    /// var options = Image.DecodingOptions(targetSize: 256)
    /// options.decodeScale = .fast  // opt in: smaller decodes, less faithful thumbnails
    /// ```
    public enum DecodeScale: String, Sendable, Hashable, CaseIterable {
        /// The default: decode at the smallest scale whose longest side is still at least twice
        /// the target, so that the final filter reduces by a factor of two or more, as libvips's
        /// shrink-on-load and Pillow's `thumbnail` (its reducing gap of 2) do. Thumbnails match a
        /// full-resolution Lanczos-3 thumbnail as closely as `vipsthumbnail`'s or more (see
        /// the DocC article "Measurements behind the design", "The faithful decode scale").
        case faithful
        /// Decode at the smallest scale whose longest side is still at least the target: up to
        /// four times fewer decoded pixels, at about 10 dB less than ``faithful`` on fine texture
        /// (35.4 against 45.8 dB on `TestImages/fidelity/OneStandsOut.jpg` at 256 px).
        case fast

        /// The longest side to ask the decoder for when the caller wants `targetSize` in the end.
        func decodeTarget(for targetSize: Int) -> Int {
            switch self {
            case .faithful: targetSize > Int.max / 2 ? Int.max : targetSize * 2
            case .fast: targetSize
            }
        }
    }
}
