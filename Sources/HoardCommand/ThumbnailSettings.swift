import Foundation
import Hoard

/// Everything that changes a thumbnail's bytes, and where it goes.
struct ThumbnailSettings: Sendable {
    let size: Int
    let format: OutputFormat
    let quality: Int
    let filter: ThumbnailFilter
    let colour: Image.ColourHandling
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
            filter: filter.resamplingFilter, colour: colour)
    }

    /// The cache key of a downloaded original's bytes. Version 2 comes with an
    /// ``OriginalRecord``: a version 1 original, kept without one, is downloaded again once.
    ///
    /// - Parameter identifier: The URL's ``InputSource/identifier()``, credentials hashed.
    static func originalKey(identifier: String) -> String {
        "original/v2 \(identifier)"
    }

    /// The cache key of a downloaded original's ``OriginalRecord``: its digest and freshness.
    ///
    /// - Parameter identifier: The URL's ``InputSource/identifier()``, credentials hashed.
    static func originalRecordKey(identifier: String) -> String {
        "original-record/v1 \(identifier)"
    }

    /// The cache key of the hex SHA-256 of the original a URL's thumbnail was made from, so that
    /// a thumbnail is served only while its original is the current one.
    ///
    /// - Parameter thumbnailKey: The thumbnail's ``ThumbnailKey/key``.
    static func thumbnailOriginKey(thumbnailKey: String) -> String {
        "thumbnail-origin/v1 \(thumbnailKey)"
    }
}
