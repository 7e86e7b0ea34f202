import Foundation
import Hoard

/// Everything that changes a thumbnail's bytes, and where it goes.
struct ThumbnailSettings: Sendable {
    let size: Int
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
            source: identifier, fingerprint: fingerprint, size: size, format: format.keyFormat, quality: quality,
            filter: filter.resamplingFilter, colour: colour, decodeScale: decodeScale)
    }
}
