import Foundation

/// A decoded value with its type and dates: what the memory tier keeps for a key, and what a fetch
/// hands to every caller that waited for it.
///
/// A class: a memory hit copies a reference out of the memory tier, one retain, where a struct
/// would copy an existential through its value witnesses.
final class StoredValue: Sendable {
    let value: any Sendable
    let typeName: String
    let cachedAt: Date
    let expiresAt: Date?

    init(value: any Sendable, typeName: String, cachedAt: Date, expiresAt: Date?) {
        self.value = value
        self.typeName = typeName
        self.cachedAt = cachedAt
        self.expiresAt = expiresAt
    }
}
