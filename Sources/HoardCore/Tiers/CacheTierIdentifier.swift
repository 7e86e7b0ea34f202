/// The name of a cache tier in entries, events, statistics and metrics: `"memory"`, `"disk"`,
/// `"redis"`, or a tier of your own.
///
/// ```swift
/// if entry.source == .memory { print("no I/O at all") }
/// let redisHits = hoard.statistics.hits(in: "redis")
/// ```
public struct CacheTierIdentifier: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral {
    /// The name.
    public var rawValue: String

    /// A tier named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A tier named `value`.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    // Computed from literals rather than stored: a `static let` costs a lazy-initialisation check
    // on every memory hit, which counts one; a small literal string costs nothing to make.

    /// The memory tier every ``Hoard`` has first.
    @inlinable public static var memory: Self { Self(rawValue: "memory") }
    /// The disk tier (``DiskCache``).
    @inlinable public static var disk: Self { Self(rawValue: "disk") }
    /// Not a tier: a value that a fetch produced (``CacheEntry/source``).
    @inlinable public static var fetch: Self { Self(rawValue: "fetch") }
}

extension CacheTierIdentifier: CustomStringConvertible {
    /// The name.
    public var description: String { rawValue }
}
