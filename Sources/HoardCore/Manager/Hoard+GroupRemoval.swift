import Foundation
import HoardSystem

extension Hoard {
    /// Removes every value whose key `shouldRemove` accepts, from memory and from every byte tier.
    ///
    /// For dropping every variant of one source, or a namespace of keys:
    ///
    /// ```swift
    /// let removed = try await hoard.removeAll { $0.hasPrefix("avatar/") }
    /// ```
    ///
    /// - Parameter shouldRemove: Called with each key, once per tier that holds it. It runs
    ///   under the memory tier's lock for memory keys: keep it quick and do not call back into
    ///   the cache.
    /// - Returns: How many keys were removed (a key held by both tiers counts once).
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the folder cannot be listed or an entry read.
    /// - Complexity: O(n) in memory, plus a scan of the disk tier: one file open and one header
    ///   read (with the first bytes of the value, up to 16 KiB) per entry, never whole values.
    @discardableResult
    public func removeAll(where shouldRemove: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await removeAll { key, _ in shouldRemove(key) }
    }

    /// Removes every value stored as `type` (by its ``Cachable/cacheTypeIdentifier``), from memory
    /// and from every byte tier.
    ///
    /// ```swift
    /// try await hoard.removeAll(ofType: Image.self)   // every image; strings and data stay
    /// ```
    ///
    /// - Parameter type: The type whose values go.
    /// - Returns: How many keys were removed (a key held by both tiers counts once).
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the folder cannot be listed or an entry read.
    /// - Complexity: As ``removeAll(where:)``: a scan of the disk tier's entry headers.
    @discardableResult
    public func removeAll<T: Cachable>(ofType type: T.Type) async throws -> Int {
        let identifier = Self.typeName(of: T.self)
        return try await removeAll { _, typeName in typeName == identifier }
    }

    // MARK: - Private

    /// Removes what `shouldRemove` picks by key and stored type name from both tiers; records one
    /// removal event per key.
    private func removeAll(
        where shouldRemove: @escaping @Sendable (_ key: String, _ typeName: String?) -> Bool
    ) async throws -> Int {
        let removedKeys = try await chain.removeAll(where: shouldRemove)
        for key in removedKeys.sorted() { monitor.record(.removed(key: key)) }
        return removedKeys.count
    }
}
