import Foundation
import HoardSystem

/// The entity tags of recent answers, by cache key and the stored entry they were computed from
/// (its date and size), so that an answer read again from the cache is not hashed again.
///
/// A tag is the first 128 bits of the content's SHA-256, in hex and quotes. An entry stored again
/// under the same key carries a new date, so its tag is computed afresh.
///
/// Invariant: the entries' costs (their key's bytes and a fixed share) total at most
/// ``byteLimit``; when one more would not fit, everything is forgotten first.
final class EntityTags: Sendable {
    private struct Tag {
        let cachedAt: Date
        let byteCount: Int
        let value: String
    }

    private struct State {
        var tags: [String: Tag] = [:]
        var bytes = 0
    }

    /// The most the entries' costs may total.
    let byteLimit: Int
    private let state = Lock(State())

    /// An empty table whose entries' costs total at most `byteLimit` (0 keeps none).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The tag of `bytes`, stored under `key` at `cachedAt`: remembered, or computed and
    /// remembered; `nil` when the system's SHA-256 fails.
    func tag(forKey key: String, cachedAt: Date, bytes: Data) -> String? {
        if let known = state.withLock({ $0.tags[key] }), known.cachedAt == cachedAt, known.byteCount == bytes.count {
            return known.value
        }
        guard let digest = SHA256.hash(Array(bytes)) else { return nil }
        let value = "\"" + SHA256.hex(digest.prefix(16)) + "\""
        let cost = key.utf8.count + 128
        guard cost <= byteLimit else { return value }
        let forgotten = state.withLock { state -> State? in
            var forgotten: State?
            if state.tags[key] == nil, state.bytes + cost > byteLimit { forgotten = state; state = State() }
            if state.tags.updateValue(Tag(cachedAt: cachedAt, byteCount: bytes.count, value: value), forKey: key) == nil {
                state.bytes += cost
            }
            return forgotten
        }
        // The forgotten entries are freed here, outside the lock.
        withExtendedLifetime(forgotten) {}
        return value
    }

    /// The tags held now.
    var count: Int { state.withLock { $0.tags.count } }

    /// The costs of the tags held now.
    var byteCount: Int { state.withLock { $0.bytes } }
}
