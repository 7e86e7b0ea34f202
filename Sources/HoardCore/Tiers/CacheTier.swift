import Foundation

/// A tier of bytes behind the memory tier: the disk (``DiskCache``), a shared Redis tier, or one
/// of your own. ``Hoard`` is its memory tier plus an ordered list of these.
///
/// Reads go through memory, then each tier in order: a hit in one tier is copied into the tiers
/// before it with its dates (so its remaining expiry), and into memory. Stores write through
/// every tier, in order. Removals reach every tier. The manager decides what is fresh (expiry,
/// ``ExpirationPolicy``, ``Hoard/expireAll()``): a tier returns what it has, expired or not, and
/// may drop expired entries on its own.
///
/// A tier that shares its data with other machines and can fail (a network tier) should not
/// throw for an unreachable server: it answers a miss and drops writes, so that the local tiers
/// keep working. A local tier (the disk) throws, and the error reaches the caller.
///
/// ```swift
/// struct LoggingTier: CacheTier {
///     let identifier: CacheTierIdentifier = "logging"
///     func entry(forKey key: String) async throws -> CacheTierEntry? { print("read", key); return nil }
///     func store(_ entry: CacheTierEntry, forKey key: String) async throws { print("store", key) }
///     func remove(forKey key: String) async throws {}
///     func removeAll() async throws {}
///     func removeEntries(where shouldRemove: @escaping @Sendable (String, ArraySlice<UInt8>) -> Bool)
///         async throws -> [String] { [] }
/// }
/// ```
public protocol CacheTier: Sendable {
    /// The tier's name in entries, events, statistics and metrics; unique within a ``Hoard``.
    var identifier: CacheTierIdentifier { get }

    /// The entry stored under `key`, expired or not, or `nil` when there is none (or it is
    /// damaged: a tier never returns bytes it cannot vouch for).
    ///
    /// - Throws: What the tier cannot recover from locally (a disk read error).
    func entry(forKey key: String) async throws -> CacheTierEntry?

    /// Stores `entry` under `key`, replacing what was there, keeping its dates.
    ///
    /// - Throws: When the bytes could not be stored; the previous value then stays.
    func store(_ entry: CacheTierEntry, forKey key: String) async throws

    /// Removes the entry under `key`; a missing entry is not an error.
    func remove(forKey key: String) async throws

    /// Removes every entry.
    ///
    /// A shared tier may go on treating entries created before the removal as removed when they
    /// are stored again later: they are copies another machine had not dropped yet.
    func removeAll() async throws

    /// Removes every entry created before `date` (by its ``CacheTierEntry/createdAt``): how a
    /// local tier applies another machine's ``Hoard/removeAll()``, keeping what was stored since.
    ///
    /// The default removes every entry (a tier that cannot tell dates without reading every
    /// value); a tier that can should do better.
    ///
    /// - Complexity: A scan of the tier.
    func removeEntries(createdBefore date: Date) async throws

    /// Removes every entry that `shouldRemove` picks by its key and the first bytes of its value
    /// (at least the type tag); returns the removed keys.
    ///
    /// - Complexity: A scan of the tier.
    func removeEntries(
        where shouldRemove: @escaping @Sendable (_ key: String, _ bytesPrefix: ArraySlice<UInt8>) -> Bool
    ) async throws -> [String]
}

extension CacheTier {
    /// Removes every entry: the conservative default of ``removeEntries(createdBefore:)``.
    public func removeEntries(createdBefore date: Date) async throws {
        try await removeAll()
    }
}
