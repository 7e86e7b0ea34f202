import Foundation

/// What `--revalidate` accepts: when a cached original is checked with its server.
package enum RevalidationPolicy: String, Sendable, CaseIterable {
    /// Never: whatever is cached is used, fresh or stale, without a request.
    case never
    /// When HTTP says the original is stale (the default): a fresh one is used without a request.
    case stale
    /// Every run, for every cached original: a conditional request each.
    case always

    /// Whether an original with `record` is revalidated at `now`.
    package func shouldRevalidate(_ record: OriginalRecord, at now: Date) -> Bool {
        switch self {
        case .never: false
        case .stale: !record.isFresh(at: now)
        case .always: true
        }
    }
}
