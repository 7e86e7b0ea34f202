import Foundation

/// What a shared fetch hands to every caller that waited for it: the value and where it came from
/// (``CacheTierIdentifier/fetch``, or the tier where another machine's fetch stored it).
///
/// A fetch produces a decoded value (``Hoard/value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``)
/// or its encoding (``Hoard/encodedEntry(_:forKey:expiry:fetch:)``); callers of either kind share
/// it, each taking its own form (see ``decoded(as:forKey:)`` and ``encoding(of:options:forKey:)``).
struct FetchOutcome: Sendable {
    /// The value and its type's name; with ``isEncoded``, `value.value` is its encoding (a `Data`).
    let value: StoredValue
    let source: CacheTierIdentifier
    /// Why the fetched value could not be stored (logged), or `nil`.
    var storeError: HoardError? = nil
    /// Whether ``value`` holds the encoding rather than the decoded value.
    var isEncoded = false
    /// The encoding of a decoded value, when it was made (to store it).
    var encoding: Data? = nil

    /// The value as `T`, decoding an encoding.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the fetch was of another
    ///   type; the decoder's error for an encoding that does not decode.
    func decoded<T: Cachable>(as type: T.Type, forKey key: String) throws -> T {
        let expected = T.cacheTypeIdentifier
        if !isEncoded, let decoded = value.value as? T { return decoded }
        guard isEncoded, value.typeName == expected, let bytes = value.value as? Data else {
            throw HoardError.typeMismatch(key: key, expected: expected, stored: value.typeName)
        }
        return try T.decode(bytes)
    }

    /// The value's encoding, for a caller that asked for bytes of type `typeName`: the fetched
    /// bytes, the ones stored, or (when the store was skipped) the value encoded with `options`.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the fetch was of another
    ///   type; ``HoardError/encodingFailed(key:type:underlying:)``.
    func encoding(of typeName: String, options: CachableEncodingOptions, forKey key: String) throws(HoardError) -> Data {
        guard value.typeName == typeName else {
            throw .typeMismatch(key: key, expected: typeName, stored: value.typeName)
        }
        if isEncoded, let bytes = value.value as? Data { return bytes }
        if let encoding { return encoding }
        guard let cachable = value.value as? any Cachable else {
            throw .typeMismatch(key: key, expected: typeName, stored: value.typeName)
        }
        do {
            return try cachable.encode(with: options)
        } catch {
            throw .encodingFailed(key: key, type: typeName, underlying: error)
        }
    }
}
