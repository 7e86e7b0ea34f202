import HoardCore

extension ThumbnailKey {
    /// How a thumbnail is encoded when it is stored: the tool's `--format`.
    ///
    /// ```swift
    /// let key = try ThumbnailKey(file: "/photos/logo.png", size: 64, format: .png)
    /// ```
    public enum Format: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// PNG when some pixel of the thumbnail is not opaque (lossless, keeps transparency), else JPEG
        /// (an opaque picture with an alpha channel too). The default.
        case auto
        /// Always JPEG, at the key's quality (alpha is dropped).
        case jpeg
        /// Always PNG.
        case png
        /// Always WebP: lossy at the key's quality (alpha kept), or lossless when the thumbnail has
        /// alpha and the quality is 100.
        case webp
        /// Always AVIF at the key's quality (alpha kept), libaom at ``Image/defaultAVIFSpeed``.
        case avif

        /// The tool's spelling: `auto`, `jpeg`, `png`, `webp` or `avif`.
        public var description: String { rawValue }
    }
}
