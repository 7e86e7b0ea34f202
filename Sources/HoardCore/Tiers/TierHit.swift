import Foundation

/// A byte tier's answer for a key in a ``TierChain``: checked for its type, not decoded.
struct TierHit {
    /// When the entry was stored.
    let createdAt: Date
    /// When the entry expires, or `nil` when it never does.
    let expiresAt: Date?
    /// The type name it was stored under.
    let typeName: String
    /// The value's bytes, without the type tag.
    let payload: Data
    /// The tier that answered.
    let source: CacheTierIdentifier
    /// Whether the entry is fresh under the read's rules.
    let isFresh: Bool
}
