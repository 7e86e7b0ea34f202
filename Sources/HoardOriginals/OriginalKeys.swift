/// The cache keys of a downloaded original, its record and the mark of the original each
/// thumbnail was made from: what `hoard thumbnails` and `hoard serve` share.
package enum OriginalKeys {
    /// The cache key of a downloaded original's bytes. Version 2 comes with an
    /// ``OriginalRecord``: a version 1 original, kept without one, is downloaded again once.
    ///
    /// - Parameter identifier: The URL's ``InputSource/identifier()``, credentials hashed.
    package static func originalKey(identifier: String) -> String {
        "original/v2 \(identifier)"
    }

    /// The cache key of a downloaded original's ``OriginalRecord``: its digest and freshness.
    ///
    /// - Parameter identifier: The URL's ``InputSource/identifier()``, credentials hashed.
    package static func originalRecordKey(identifier: String) -> String {
        "original-record/v1 \(identifier)"
    }

    /// The cache key of the hex SHA-256 of the original a URL's thumbnail was made from, so that
    /// a thumbnail is served only while its original is the current one.
    ///
    /// - Parameter thumbnailKey: The thumbnail's ``ThumbnailKey/key``.
    package static func thumbnailOriginKey(thumbnailKey: String) -> String {
        "thumbnail-origin/v1 \(thumbnailKey)"
    }
}
