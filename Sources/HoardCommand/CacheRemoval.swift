import Hoard
import HoardSystem

/// Removals across the tool's caches (thumbnails and records, originals) that say what went.
enum CacheRemoval {
    /// Removes every entry whose key `shouldRemove` picks from each cache in `hoards` (all their
    /// tiers, the shared one included).
    ///
    /// - Returns: The keys removed, once each, sorted by their bytes.
    /// - Throws: What ``Hoard/removeAll(where:)`` throws.
    static func removeAll(from hoards: [Hoard?], where shouldRemove: @escaping @Sendable (String) -> Bool)
        async throws -> [String]
    {
        let picked = Lock<Set<ExactString>>([])
        for hoard in hoards.compactMap({ $0 }) {
            _ = try await hoard.removeAll { key in
                guard shouldRemove(key) else { return false }
                picked.withLock { _ = $0.insert(ExactString(key)) }
                return true
            }
        }
        return picked.withLock { $0 }.map(\.string).sorted {
            Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
        }
    }
}
