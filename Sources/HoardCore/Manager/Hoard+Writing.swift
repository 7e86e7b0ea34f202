import Foundation

extension Hoard {
    /// What a write stored: its dates and the bytes (the value's encoding).
    package typealias Written = (cachedAt: Date, expiresAt: Date?, bytes: Data)

    /// Encodes a value in place of ``Cachable/encode(with:)`` with the configuration's options.
    package typealias ValueEncoder<T> = @Sendable (T) throws -> Data

    /// Encodes `object` and, unless the insertion policy refuses it, stores it in every tier and
    /// the decoded value in memory.
    ///
    /// - Returns: What was stored, or `nil` when it was refused (then the key's previous value has
    ///   been removed).
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite;
    ///   ``HoardError/encodingFailed(key:type:underlying:)``, ``HoardError/tier(_:underlying:)``.
    @discardableResult
    func write<T: Cachable>(
        _ object: T, forKey key: String, expiry: Expiry?, encoder: ValueEncoder<T>? = nil
    ) async throws(HoardError) -> Written? {
        try Self.validate(expiry, "expiry")
        let bytes = try encode(object, forKey: key, encoder: encoder)
        return try await writeBytes(
            bytes, typeName: Self.typeName(of: T.self), candidate: object, forKey: key, expiry: expiry,
            decoded: (object, object.memoryCost(encodedByteCount: bytes.count)))
    }

    /// Stores `bytes`, the encoding of a value of type `typeName`, in every byte tier unless the
    /// insertion policy refuses `candidate`; then puts `decoded` (the value and its memory cost) in
    /// memory, or, with none or an entry already expired, drops memory's value for `key`. The one
    /// write path under ``write(_:forKey:expiry:)`` and ``writeEncoded(_:typeName:candidate:forKey:expiry:framed:)``.
    /// `framed`, when given, is `bytes` already laid out with their type (see ``TypedPayload``).
    func writeBytes(
        _ bytes: Data, typeName: String, candidate: any Cachable, forKey key: String, expiry: Expiry?,
        decoded: (value: any Sendable, cost: Int)?, framed: Data? = nil
    ) async throws(HoardError) -> Written? {
        guard configuration.insertionPolicy.shouldStore(.init(key: key, value: candidate, byteCount: bytes.count))
        else {
            try await chain.remove(forKey: key)
            monitor.record(.storeRefused(key: key, byteCount: bytes.count))
            return nil
        }
        let now = configuration.now()
        let expiresAt = (expiry ?? configuration.defaultExpiry).expirationDate(from: now)
        var inMemory: (StoredValue, cost: Int)?
        if let decoded, !(expiresAt?.hasExpired(at: now) ?? false) {
            inMemory = (StoredValue(value: decoded.value, typeName: typeName, cachedAt: now, expiresAt: expiresAt), decoded.cost)
        }
        let evicted = try await chain.write(
            CacheTierEntry(bytes: framed ?? TypedPayload.wrap(bytes, typeName: typeName), createdAt: now, expiresAt: expiresAt),
            forKey: key, memory: inMemory)
        monitor.record(HoardMonitor.memoryEvictions(evicted), then: .stored(key: key, byteCount: bytes.count))
        return (now, expiresAt, bytes)
    }

    /// Checks an expiry given to a write, naming it `field`.
    ///
    /// - Throws: ``HoardError/invalidValue(_:)`` for an expiry that is not finite.
    static func validate(_ expiry: Expiry?, _ field: String) throws(HoardError) {
        do {
            try expiry?.validate(field)
        } catch {
            throw .invalidValue(error)
        }
    }

    /// `object`'s bytes from `encoder`, or with ``Configuration/encodingOptions`` when it is `nil`.
    func encode<T: Cachable>(_ object: T, forKey key: String, encoder: ValueEncoder<T>? = nil) throws(HoardError)
        -> Data
    {
        do {
            if let encoder { return try encoder(object) }
            return try object.encode(with: configuration.encodingOptions)
        } catch {
            throw .encodingFailed(key: key, type: Self.typeName(of: T.self), underlying: error)
        }
    }

    /// The name a value's type is recorded under.
    package static func typeName<T: Cachable>(of type: T.Type) -> String {
        type.cacheTypeIdentifier
    }
}
