import Foundation
import HoardCore

extension Hoard {
    /// The thumbnail stored under `key`, decoded: one the `hoard thumbnails` tool made (when it used
    /// this cache's folder, as it does ``shared``'s by default), or one stored with
    /// ``store(_:forKey:expiry:)-(_,ThumbnailKey,_)``.
    ///
    /// The same as ``retrieve(_:forKey:)-(_,String)`` with ``ThumbnailKey/key``.
    ///
    /// ```swift
    /// let key = try ThumbnailKey(file: "/photos/beach.jpg", size: 256)
    /// if let thumbnail = try await Hoard.shared.retrieve(Image.self, forKey: key) {
    ///     print(thumbnail.width, thumbnail.height)  // 256 x 171 for a 3:2 photo
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: `Image.self`.
    ///   - key: The thumbnail's key.
    /// - Returns: The thumbnail, or `nil` when there is none or it has expired.
    /// - Throws: As ``retrieve(_:forKey:)-(_,String)``.
    public func retrieve(_ type: Image.Type = Image.self, forKey key: ThumbnailKey) async throws -> Image? {
        try await retrieve(type, forKey: key.key)
    }

    /// Stores `thumbnail` under `key` encoded as the key says (its format and quality, see
    /// ``ThumbnailKey/encoded(_:)``), as an ``Image`` entry: the tool's next run with the same
    /// source and settings writes these bytes out instead of making a thumbnail.
    ///
    /// The bytes go to the disk tier only (see ``storeEncoded(_:as:forKey:expiry:)``); a later
    /// ``retrieve(_:forKey:)-(_,ThumbnailKey)`` decodes them. Store a thumbnail of the key's
    /// size, made from the key's source (``ThumbnailKey/thumbnail(from:)`` makes the tool's):
    /// nothing checks that it is.
    ///
    /// ```swift
    /// let key = try ThumbnailKey(file: "/photos/beach.jpg", size: 256)
    /// let thumbnail = try key.thumbnail(from: Data(contentsOf: URL(fileURLWithPath: "/photos/beach.jpg")))
    /// try await Hoard.shared.store(thumbnail, forKey: key)
    /// ```
    ///
    /// - Parameters:
    ///   - thumbnail: The thumbnail.
    ///   - key: Its key.
    ///   - expiry: When it stops being returned; `nil` means the configuration's
    ///     ``Configuration/defaultExpiry``.
    /// - Throws: ``ImageError`` when the thumbnail cannot be encoded; otherwise as
    ///   ``storeEncoded(_:as:forKey:expiry:)``.
    public func store(_ thumbnail: Image, forKey key: ThumbnailKey, expiry: Expiry? = nil) async throws {
        guard configuration.isCachingEnabled else { return }
        let bytes = try key.encoded(thumbnail)
        try await writeEncoded(
            bytes, typeName: Self.typeName(of: Image.self), candidate: thumbnail, forKey: key.key, expiry: expiry)
    }
}
