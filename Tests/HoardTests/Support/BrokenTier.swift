import Foundation
import Hoard

/// A tier whose every operation fails.
struct BrokenTier: CacheTier {
    struct Unavailable: Error {}
    let identifier: CacheTierIdentifier = "broken"
    func entry(forKey key: String) async throws -> CacheTierEntry? { throw Unavailable() }
    func store(_ entry: CacheTierEntry, forKey key: String) async throws { throw Unavailable() }
    func remove(forKey key: String) async throws { throw Unavailable() }
    func removeAll() async throws { throw Unavailable() }
    func removeEntries(
        where shouldRemove: @escaping @Sendable (_ key: String, _ bytesPrefix: ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] { throw Unavailable() }
}
