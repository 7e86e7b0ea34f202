import Foundation

/// A value that a cache can turn into bytes and back.
///
/// Conformances ship for `String` (UTF-8), `Data` (as is), `Image` (in `HoardImage`: PNG when it
/// has alpha, else JPEG), and a few scalars. Any `Codable` type gets a JSON encoding by declaring the conformance
/// alone, and so do arrays and dictionaries of such values:
///
/// ```swift
/// struct Profile: Codable, Cachable {
///     var name: String
///     var visits: Int
/// }
/// let bytes = try Profile(name: "Ada", visits: 3).encode()
/// let again = try Profile.decode(bytes)
/// ```
public protocol Cachable: Sendable {
    /// The bytes that represent this value in a cache.
    ///
    /// - Throws: ``CachableError`` (or the encoder's error) when the value cannot be represented.
    func encode() throws -> Data

    /// Rebuilds a value from bytes that ``encode()`` produced.
    ///
    /// Bytes that do not form a valid value throw; they never come back as a wrong value.
    ///
    /// - Throws: ``CachableError``.
    static func decode(_ data: Data) throws -> Self

    /// The name a cache records with the bytes, so that they are never decoded as another type.
    ///
    /// The default is the type's full Swift name (`String(reflecting:)`, e.g. `"MyApp.Profile"`).
    /// Override it with a fixed string to keep stored entries readable after renaming or moving
    /// the type (and for types declared inside functions, whose reflected name is not stable).
    static var cacheTypeIdentifier: String { get }

    /// The bytes a ``Hoard`` stores for this value, given the cache's settings.
    ///
    /// The default is ``encode()``. `Image` (in `HoardImage`) uses the cache's JPEG quality for
    /// opaque images.
    ///
    /// - Parameter options: The cache's encoding settings.
    /// - Throws: As ``encode()``.
    func encode(with options: CachableEncodingOptions) throws -> Data

    /// What keeping this value decoded costs a memory tier, in bytes.
    ///
    /// The default is the size of its encoding; `Image` counts its pixel bytes.
    ///
    /// - Parameter encodedByteCount: The size of the value's encoding.
    func memoryCost(encodedByteCount: Int) -> Int
}

extension Cachable {
    /// The type's full Swift name.
    public static var cacheTypeIdentifier: String { String(reflecting: Self.self) }

    /// ``encode()``: the options matter only to lossy encodings.
    public func encode(with options: CachableEncodingOptions) throws -> Data { try encode() }

    /// The size of the encoding.
    public func memoryCost(encodedByteCount: Int) -> Int { encodedByteCount }
}

extension Cachable where Self: Codable {
    /// Encodes the value as JSON (keys sorted, so equal values give equal bytes).
    ///
    /// - Throws: ``CachableError/encodingFailed(type:reason:)``.
    public func encode() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(self)
        } catch {
            throw CachableError.encodingFailed(type: String(reflecting: Self.self), reason: String(describing: error))
        }
    }

    /// Decodes the value from JSON.
    ///
    /// - Throws: ``CachableError/decodingFailed(type:reason:)`` naming the type and what did not fit.
    public static func decode(_ data: Data) throws -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw CachableError.decodingFailed(type: String(reflecting: Self.self), reason: String(describing: error))
        }
    }
}
