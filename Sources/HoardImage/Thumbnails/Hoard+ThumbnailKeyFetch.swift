import Foundation
import HoardCore

/// Every other keyed call with a ``ThumbnailKey``: the value stored is always encoded as the key
/// says (format and quality), never with ``Configuration/encodingOptions``.
extension Hoard {
    /// The thumbnail for `key`, from the cache or made by `fetch`, as `policy` says; a thumbnail
    /// `fetch` made is stored encoded as the key says. See
    /// ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    ///
    /// ```swift
    /// let key = try ThumbnailKey(file: "/photos/beach.jpg", size: 256)
    /// let thumbnail = try await Hoard.shared.value(forKey: key) {
    ///     try key.thumbnail(from: Data(contentsOf: URL(fileURLWithPath: "/photos/beach.jpg")))
    /// }
    /// ```
    ///
    /// - Parameters: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``, with the
    ///   thumbnail's key.
    /// - Returns: The thumbnail.
    /// - Throws: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    public func value(
        forKey key: ThumbnailKey, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        expirationPolicy: ExpirationPolicy? = nil, reset: Bool = false,
        fetch: @escaping @Sendable () async throws -> Image
    ) async throws -> Image {
        try await entry(
            forKey: key, policy: policy, expiry: expiry, expirationPolicy: expirationPolicy, reset: reset, fetch: fetch
        ).value
    }

    /// The thumbnail for `key` with where it came from; see
    /// ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)-(ThumbnailKey,_,_,_,_,_)``.
    ///
    /// ```swift
    /// let entry = try await Hoard.shared.entry(forKey: key) { try key.thumbnail(from: download(url)) }
    /// print(entry.source)  // .fetch the first time, then .memory or .disk
    /// ```
    ///
    /// - Parameters: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)-(ThumbnailKey,_,_,_,_,_)``.
    /// - Returns: The entry.
    /// - Throws: As ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``.
    public func entry(
        forKey key: ThumbnailKey, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        expirationPolicy: ExpirationPolicy? = nil, reset: Bool = false,
        fetch: @escaping @Sendable () async throws -> Image
    ) async throws -> CacheEntry<Image> {
        try await entry(
            forKey: key.key, policy: policy, expiry: expiry, expirationPolicy: expirationPolicy, reset: reset,
            encoder: { thumbnail in try key.encoded(thumbnail) }, fetch: fetch)
    }

    /// The cached thumbnail for `key`, if there is a fresh one, then the one `fetch` makes (stored
    /// encoded as the key says); see ``values(forKey:expiry:expirationPolicy:fetch:)``.
    ///
    /// ```swift
    /// for try await thumbnail in Hoard.shared.values(forKey: key, fetch: { try key.thumbnail(from: download(url)) }) {
    ///     show(thumbnail)
    /// }
    /// ```
    ///
    /// - Parameters: As ``values(forKey:expiry:expirationPolicy:fetch:)``, with the thumbnail's key.
    /// - Returns: A stream of one or two thumbnails.
    public func values(
        forKey key: ThumbnailKey, expiry: Expiry? = nil, expirationPolicy: ExpirationPolicy? = nil,
        fetch: @escaping @Sendable () async throws -> Image
    ) -> AsyncThrowingStream<Image, any Error> {
        cacheThenFetch(
            forKey: key.key, expiry: expiry, expirationPolicy: expirationPolicy,
            encoder: { thumbnail in try key.encoded(thumbnail) }, fetch: fetch
        ) { $0.value }
    }

    /// The cached entry for `key`, if there is a fresh one, then the fetched one; see
    /// ``values(forKey:expiry:expirationPolicy:fetch:)-(ThumbnailKey,_,_,_)``.
    ///
    /// - Parameters: As ``values(forKey:expiry:expirationPolicy:fetch:)``, with the thumbnail's key.
    /// - Returns: A stream of one or two entries.
    public func entries(
        forKey key: ThumbnailKey, expiry: Expiry? = nil, expirationPolicy: ExpirationPolicy? = nil,
        fetch: @escaping @Sendable () async throws -> Image
    ) -> AsyncThrowingStream<CacheEntry<Image>, any Error> {
        cacheThenFetch(
            forKey: key.key, expiry: expiry, expirationPolicy: expirationPolicy,
            encoder: { thumbnail in try key.encoded(thumbnail) }, fetch: fetch
        ) { $0 }
    }

    /// The thumbnail stored under `key` with its dates and source, or `nil`; see
    /// ``entry(_:forKey:)-(_,String)``.
    ///
    /// - Parameters:
    ///   - type: `Image.self`.
    ///   - key: The thumbnail's key.
    /// - Returns: The entry, or `nil` when there is none or it has expired.
    /// - Throws: As ``entry(_:forKey:)-(_,String)``.
    public func entry(_ type: Image.Type = Image.self, forKey key: ThumbnailKey) async throws -> CacheEntry<Image>? {
        try await entry(type, forKey: key.key)
    }

    /// The thumbnail's bytes as stored under `key` (the JPEG, PNG or WebP file the key's settings
    /// made), without decoding them; see ``retrieveEncoded(_:forKey:)``.
    ///
    /// - Parameter key: The thumbnail's key.
    /// - Returns: The file's bytes, or `nil` when there is no fresh thumbnail.
    /// - Throws: As ``retrieveEncoded(_:forKey:)``.
    public func retrieveEncoded(forKey key: ThumbnailKey) async throws -> Data? {
        try await retrieveEncoded(Image.self, forKey: key.key)
    }

    /// The thumbnail's bytes as the disk tier holds them and the type they were stored as; see
    /// ``storedBytes(forKey:)-(String)``.
    ///
    /// - Parameter key: The thumbnail's key.
    /// - Returns: The type's identifier and the file's bytes, or `nil` when there is no live entry.
    /// - Throws: As ``storedBytes(forKey:)-(String)``.
    public func storedBytes(forKey key: ThumbnailKey) throws -> (typeIdentifier: String, bytes: Data)? {
        try storedBytes(forKey: key.key)
    }

    /// Removes the thumbnail under `key` from every tier; see ``remove(forKey:)-(String)``.
    ///
    /// - Parameter key: The thumbnail's key.
    /// - Throws: As ``remove(forKey:)-(String)``.
    public func remove(forKey key: ThumbnailKey) async throws {
        try await remove(forKey: key.key)
    }

    /// ``store(_:forKey:expiry:)-(_,ThumbnailKey,_)`` with a completion handler, in order with the
    /// other completion-handler calls on the key (see ``store(key:object:completion:)``).
    ///
    /// - Parameters:
    ///   - key: The thumbnail's key.
    ///   - object: The thumbnail.
    ///   - completion: Called exactly once, whether the store succeeded or not (failures are logged).
    public func store(key: ThumbnailKey, object: Image, completion: (@Sendable () -> Void)? = nil) {
        enqueueCompletion(key: key.key) { [self] in
            do {
                try await store(object, forKey: key)
            } catch {
                configuration.logger.warning("store failed", metadata: ["key": "\(key.key)", "error": "\(error)"])
            }
            completion?()
        }
    }

    /// ``retrieve(_:forKey:)-(_,ThumbnailKey)`` with a completion handler, in order with the other
    /// completion-handler calls on the key.
    ///
    /// - Parameters:
    ///   - key: The thumbnail's key.
    ///   - completion: Called exactly once, with `nil` on a miss or an error (errors are logged).
    public func retrieve(key: ThumbnailKey, completion: @escaping @Sendable (Image?) -> Void) {
        retrieve(key.key, completion: completion)
    }

    /// ``remove(forKey:)-(ThumbnailKey)`` with a completion handler, in order with the other
    /// completion-handler calls on the key.
    ///
    /// - Parameters:
    ///   - key: The thumbnail's key.
    ///   - completion: Called exactly once, whether removal succeeded or not (failures are logged).
    public func remove(_ key: ThumbnailKey, completion: (@Sendable () -> Void)? = nil) {
        remove(key.key, completion: completion)
    }
}
