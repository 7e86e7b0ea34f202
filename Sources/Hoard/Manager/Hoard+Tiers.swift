import Foundation

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
                throw HoardError(wrapping: error)
            }
        }
    }

    /// Removes `key` from memory and from every byte tier.
    ///
    /// - Throws: The first error a tier throws, after every tier has been asked.
    func removeEverywhere(forKey key: String) async throws(HoardError) {
        memory.removeValue(forKey: key)
        var firstError: HoardError?
        for tier in tiers {
            do {
                try await tier.remove(forKey: key)
            } catch {
                firstError = firstError ?? HoardError(wrapping: error)
            }
        }
        if let firstError { throw firstError }
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
}
