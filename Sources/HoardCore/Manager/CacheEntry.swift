import Foundation

/// A cached value with its metadata: when it was cached, when it expires, and where it came from.
///
/// ```swift
/// if let entry = try await hoard.entry(Image.self, forKey: url) {
///     print("from \(entry.source), \(Int(entry.age)) s old")
/// }
/// ```
public struct CacheEntry<Value: Sendable>: Sendable {
    /// Which tier answered: ``CacheTierIdentifier/memory``, ``CacheTierIdentifier/disk``, another
    /// tier's identifier (`"redis"`), or ``CacheTierIdentifier/fetch`` for a value a fetch just made.
    public typealias Source = CacheTierIdentifier

    /// The value.
    public let value: Value
    /// When the value was stored.
    public let cachedAt: Date
    /// When the value expires, or `nil` if it never does.
    public let expiresAt: Date?
    /// Which tier answered.
    public let source: Source
    /// When the entry was read.
    public let retrievedAt: Date
    /// Whether the value had expired when it was read.
    ///
    /// Only ``CachePolicy/networkElseCache`` returns stale values: when its fetch fails, the
    /// cached value is returned even after its expiry, its ``ExpirationPolicy`` age or an
    /// ``Hoard/expireAll()``, with this flag set. Every other read treats an expired value as a miss.
    public let isStale: Bool
    /// Why a value that a fetch made (``source`` ``CacheTierIdentifier/fetch``) could not be
    /// stored, or `nil` when it was (or was read from a tier). The fetching calls log this and
    /// return the value anyway; a caller for whom an unstored value is a failure (a batch that
    /// promises a warm rerun) checks it.
    public let storeError: HoardError?

    /// How long the value had been cached when it was read, in seconds.
    public var age: TimeInterval { retrievedAt.timeIntervalSince(cachedAt) }

    init(
        value: Value, cachedAt: Date, expiresAt: Date?, source: Source, retrievedAt: Date, isStale: Bool = false,
        storeError: HoardError? = nil
    ) {
        self.value = value
        self.cachedAt = cachedAt
        self.expiresAt = expiresAt
        self.source = source
        self.retrievedAt = retrievedAt
        self.isStale = isStale
        self.storeError = storeError
    }

    /// The same entry, marked stale or fresh.
    func marked(stale: Bool) -> CacheEntry {
        CacheEntry(
            value: value, cachedAt: cachedAt, expiresAt: expiresAt, source: source, retrievedAt: retrievedAt,
            isStale: stale, storeError: storeError)
    }
}
