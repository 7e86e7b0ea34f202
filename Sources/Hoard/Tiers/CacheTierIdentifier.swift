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

    /// The memory tier every ``Hoard`` has first.
    public static let memory: Self = "memory"
    /// The disk tier (``DiskCache``).
    public static let disk: Self = "disk"
    /// Not a tier: a value that a fetch produced (``CacheEntry/source``).
    public static let fetch: Self = "fetch"
}

extension CacheTierIdentifier: CustomStringConvertible {
    /// The name.
    public var description: String { rawValue }
}
