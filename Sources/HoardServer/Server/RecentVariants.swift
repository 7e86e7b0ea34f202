import Foundation
import HoardSystem

/// The variants that recent requests for remote sources named, by path and by whether the client
/// takes WebP: a repeated request skips parsing its path, checking its source against the
/// allow-list and making its cache key, all fixed by a configuration that does not change while
/// the server runs. The signature is still checked on every request.
///
/// Invariant: the paths and keys held total at most ``byteLimit`` bytes; when one more would not
/// fit, everything is forgotten first. Local sources are never held: their key carries the file's
/// fingerprint, read on every request.
final class RecentVariants: Sendable {
    /// What a path resolved to.
    struct Entry: Sendable {
        let variant: Variant
        let url: URL
        /// Whether the path asked for `f:auto` (the answer then varies by `Accept`).
        let variesByAccept: Bool
    }

    private struct Key: Hashable {
        let path: String
        let acceptsWebP: Bool
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
    }

    /// The most bytes of paths and keys held.
    let byteLimit: Int
    private let state = Lock(State())

    /// An empty memo holding up to `byteLimit` bytes of paths and keys (0 holds nothing).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// What `path` resolved to for a client that does or does not take WebP, if recent.
    func entry(path: String, acceptsWebP: Bool) -> Entry? {
        let key = Key(path: path, acceptsWebP: acceptsWebP)
        return state.withLock { $0.entries[key] }
    }

    /// Remembers what `path` resolved to.
    func remember(_ entry: Entry, path: String, acceptsWebP: Bool) {
        let cost = path.utf8.count + entry.variant.cacheKey.utf8.count
        guard cost <= byteLimit else { return }
        let key = Key(path: path, acceptsWebP: acceptsWebP)
        state.withLock { state in
            guard state.entries[key] == nil else { return }
            if state.bytes + cost > byteLimit { state = State() }
            state.entries[key] = entry
            state.bytes += cost
        }
    }

    /// The bytes of paths and keys held now.
    var byteCount: Int { state.withLock { $0.bytes } }
}
