import Foundation
import HoardSystem

extension Hoard {
    /// Writes `entry` through every byte tier, in order.
    ///
    /// - Throws: The first tier's error that a tier throws (a local tier's; a shared tier that
    ///   cannot reach its server drops the write itself); the tiers after it are not written.
    func storeInTiers(_ entry: CacheTierEntry, forKey key: String) async throws(HoardError) {
        for tier in tiers {
            do {
                try await tier.store(entry, forKey: key)
            } catch {
                throw HoardError(tier: tier.identifier, wrapping: error)
            }
        }
    }

    /// Removes `key` from memory and from every byte tier.
    ///
    /// - Throws: The first error a tier throws, after every tier has been asked.
    func removeEverywhere(forKey key: String) async throws(HoardError) {
        memory.removeValue(forKey: ExactString(key))
        var firstError: HoardError?
        for tier in tiers {
            do {
                try await tier.remove(forKey: key)
            } catch {
                firstError = firstError ?? HoardError(tier: tier.identifier, wrapping: error)
            }
        }
        if let firstError { throw firstError }
    }

    /// Copies `hit` into the byte tiers before the one that had it, if any (see ``copy(_:forKey:into:)``).
    func copyToFasterTiers(_ hit: TierHit, forKey key: String) async {
        guard let entry = hit.forFasterTiers else { return }
        await copy(entry, forKey: key, into: tiers[..<hit.tierIndex])
    }

    /// Copies a hit into the faster tiers before the one that had it; a failure only costs the
    /// copy, so it is logged.
    func copy(_ entry: CacheTierEntry, forKey key: String, into faster: ArraySlice<any CacheTier>) async {
        for tier in faster {
            do {
                try await tier.store(entry, forKey: key)
            } catch {
                logger.warning(
                    "Cannot copy a cached value into a faster tier",
                    metadata: ["key": .string(key), "tier": .string(tier.identifier.rawValue), "error": "\(error)"])
            }
        }
    }

    /// `tier`'s entry for `key`, its errors as ``HoardError``.
    func entry(in tier: any CacheTier, forKey key: String) async throws(HoardError) -> CacheTierEntry? {
        do {
            return try await tier.entry(forKey: key)
        } catch {
            throw HoardError(tier: tier.identifier, wrapping: error)
        }
    }

    /// The type name and the value's bytes of `stored`, which must have been stored as `expected`.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` for another type or bytes
    ///   without a type tag.
    static func unwrap(
        _ stored: CacheTierEntry, forKey key: String, expecting expected: String, sharingStorage: Bool = false
    ) throws(HoardError) -> (typeName: String, payload: Data) {
        guard let (typeName, payload) = TypedPayload.unwrap(stored.bytes, expecting: expected, sharingStorage: sharingStorage) else {
            throw .typeMismatch(key: key, expected: expected, stored: HoardError.untaggedValue)
        }
        guard typeName == expected else {
            throw .typeMismatch(key: key, expected: expected, stored: typeName)
        }
        return (typeName, payload)
    }
}
