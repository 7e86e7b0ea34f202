extension Hoard.Configuration {
    /// One byte tier in ``Hoard/Configuration/tiers``: the disk tier this configuration describes,
    /// or a ``CacheTier`` of your own (a shared Redis tier, say).
    ///
    /// ```swift
    /// configuration.tiers = [.disk, .custom(redis)]  // memory, then the disk, then Redis
    /// configuration.tiers = [.custom(redis)]         // memory, then Redis: no files at all
    /// ```
    public struct Tier: Sendable {
        enum Kind: Sendable {
            case disk
            case custom(any CacheTier)
        }

        let kind: Kind

        /// The disk tier in ``Hoard/Configuration/resolvedDirectory``, with
        /// ``Hoard/Configuration/diskSizeLimit`` and ``Hoard/Configuration/diskWriteLockTimeout``.
        public static let disk = Tier(kind: .disk)

        /// `tier`, read and written in its place in the list.
        public static func custom(_ tier: any CacheTier) -> Tier { Tier(kind: .custom(tier)) }

        /// The tier's identifier: ``CacheTierIdentifier/disk`` or the custom tier's own.
        public var identifier: CacheTierIdentifier {
            switch kind {
            case .disk: .disk
            case .custom(let tier): tier.identifier
            }
        }

        /// The custom tier, or `nil` for the disk.
        var custom: (any CacheTier)? {
            if case .custom(let tier) = kind { return tier }
            return nil
        }
    }

    /// Whether ``tiers`` lists the disk.
    var listsDisk: Bool { tiers.contains { $0.custom == nil } }
}
