import Foundation

/// What a ``CacheTier`` keeps for a key: the value's bytes and their dates.
public struct CacheTierEntry: Sendable, Hashable {
    /// The bytes, as the manager stored them (a type tag, then the value's encoding).
    public var bytes: Data
    /// When the value was first stored, in whichever tier: copies between tiers keep it.
    public var createdAt: Date
    /// When the value expires, or `nil` if it never does.
    public var expiresAt: Date?

    /// An entry of `bytes` with its dates.
    public init(bytes: Data, createdAt: Date, expiresAt: Date?) {
        self.bytes = bytes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
