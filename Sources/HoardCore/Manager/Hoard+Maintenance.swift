import Foundation

extension Hoard {
    /// The entries of the disk tier: key, sizes and dates, read from headers only.
    ///
    /// - Returns: One element per live entry, in no particular order.
    /// - Throws: ``HoardError/tier(_:underlying:)``; ``HoardError/tierNotConfigured(_:)`` without a disk tier.
    /// - Complexity: O(m) header reads for m entries.
    public func diskEntries() throws -> [DiskCache.EntryInfo] {
        try onDisk { try $0.entryInfos() }
    }

    /// How many entries the disk tier holds, expired ones included until they are removed (see
    /// ``DiskCache/entryCount``).
    ///
    /// - Throws: ``HoardError/tier(_:underlying:)``; ``HoardError/tierNotConfigured(_:)`` without a disk tier.
    public func diskEntryCount() throws -> Int {
        try onDisk { try $0.entryCount }
    }

    /// The bytes the disk tier's records take, headers and keys included.
    ///
    /// - Throws: ``HoardError/tier(_:underlying:)``; ``HoardError/tierNotConfigured(_:)`` without a disk tier.
    public func diskSize() throws -> Int {
        try onDisk { try $0.totalSize }
    }

    /// Removes expired entries and trims the disk tier to its limit.
    ///
    /// - Returns: How many expired entries were removed.
    /// - Throws: ``HoardError/tier(_:underlying:)``; ``HoardError/tierNotConfigured(_:)`` without a disk tier.
    @discardableResult
    public func prune() throws -> Int {
        try onDisk { cache in
            let removed = try cache.removeExpired()
            try cache.trim()
            return removed
        }
    }

    /// The encoded bytes stored under `key` and the type they were stored as, without decoding
    /// them: for tools that copy or inspect entries.
    ///
    /// ```swift
    /// if let (type, bytes) = try hoard.storedBytes(forKey: key) { print(type, bytes.count) }
    /// ```
    ///
    /// - Returns: The type's ``Cachable/cacheTypeIdentifier`` and the value's own encoding, or
    ///   `nil` when there is no live entry.
    /// - Throws: ``HoardError/tier(_:underlying:)``; ``HoardError/typeMismatch(key:expected:stored:)`` for
    ///   bytes that Hoard did not write.
    public func storedBytes(forKey key: String) throws -> (typeIdentifier: String, bytes: Data)? {
        guard let data = try onDisk({ try $0.data(forKey: key) }) else { return nil }
        // The read's own buffer, given to no tier: the value shares it rather than being copied.
        guard let (typeName, payload) = TypedPayload.unwrap(data, sharingStorage: true) else {
            throw HoardError.typeMismatch(key: key, expected: "value stored through Hoard", stored: HoardError.untaggedValue)
        }
        return (typeName, payload)
    }
}
