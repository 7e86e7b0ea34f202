import Foundation
import Hoard
import HoardServer

/// Everything that changes a thumbnail's bytes, and where it goes.
struct ThumbnailSettings: Sendable {
    let box: ThumbnailBox
    let fit: ThumbnailFit
    let gravity: ThumbnailGravity
    /// How output files are named.
    let naming: OutputNaming
    let format: OutputFormat
    let quality: Int
    let filter: ThumbnailFilter
    let colour: Image.ColourHandling
    let decodeScale: Image.DecodeScale
    /// The output folder, an absolute path.
    let outputPath: String

    /// The cache key of a thumbnail (see ``ThumbnailKey``): the source (for a local file, also its
    /// size and modification time, so an edited file is thumbnailed again) and every setting that
    /// changes the output. Code that reads the tool's thumbnails makes the same key.
    ///
    /// - Parameter identifier: The source's ``InputSource/identifier()``, made once per input.
    /// - Throws: ``ThumbnailKeyError/fileUnavailable(path:call:errno:)`` when a local file's
    ///   status cannot be read.
    func thumbnailKey(for source: InputSource, identifier: String) throws(ThumbnailKeyError) -> ThumbnailKey {
        let fingerprint: ThumbnailKey.FileFingerprint? =
            if case .file(let path) = source { try ThumbnailKey.FileFingerprint(file: path) } else { nil }
        return try ThumbnailKey(
            source: identifier, fingerprint: fingerprint, size: max(box.width, box.height ?? 0), format: format.keyFormat,
            quality: quality,
            filter: filter.resamplingFilter, colour: colour, decodeScale: decodeScale)
    }

    /// What is made for a source: for a square `fit` box the tool's thumbnail (`key` itself),
    /// otherwise the box, fill and gravity as `hoard serve` makes them, under the same cache key.
    func variant(of key: ThumbnailKey) throws(ServeError) -> Variant {
        var options = ProcessingOptions(width: box.width, height: box.height)
        options.fit = fit.resizing
        options.gravity = gravity.gravity
        return try Variant(options: options, baseKey: key)
    }

    /// The box as output names spell it: `256`, `256x128`, `256x128-fill`, `256x128-fill-ne`.
    var spelledBox: String {
        var spelled = box.spelled
        if fit == .fill { spelled += "-fill" }
        if gravity != .centre { spelled += "-" + gravity.rawValue }
        return spelled
    }
}
