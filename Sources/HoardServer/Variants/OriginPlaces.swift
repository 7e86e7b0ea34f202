import Foundation
import HoardSystem

/// Places for loading originals, a separate set per origin: reading, downloading and revalidating
/// from one host take only that host's places, so a silent origin costs its own requests and no one
/// else's.
///
/// Invariant: at most ``concurrency`` loads run and ``capacity`` wait for any one origin (scheme,
/// host and port); one beyond is refused with ``ServeError/overloaded(retryAfter:)``. Origins are
/// the allow-list's hosts, so the table stays as small as the allow-list.
final class OriginPlaces: Sendable {
    /// Loads at once per origin.
    let concurrency: Int
    /// Loads that may wait per origin.
    let capacity: Int
    private let queues = Lock<[String: WorkQueue]>([:])

    init(concurrency: Int, capacity: Int) {
        self.concurrency = concurrency
        self.capacity = capacity
    }

    /// Runs `body` in a place of `url`'s origin.
    ///
    /// - Throws: ``ServeError/overloaded(retryAfter:)`` when that origin's places and queue are
    ///   full; else what `body` throws.
    func run<Result: Sendable>(for url: URL, _ body: () async throws -> Result) async throws -> Result {
        try await queue(for: Self.origin(of: url)).runOrRefuse(body)
    }

    /// How many loads run and wait for `url`'s origin, now.
    func counts(for url: URL) -> (running: Int, waiting: Int) {
        queue(for: Self.origin(of: url)).counts
    }

    private func queue(for origin: String) -> WorkQueue {
        queues.withLock { queues in
            if let queue = queues[origin] { return queue }
            let queue = WorkQueue(concurrency: concurrency, waitingCapacity: capacity)
            queues[origin] = queue
            return queue
        }
    }

    /// `scheme://host:port`, lowercased.
    static func origin(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = components?.scheme?.lowercased() ?? ""
        let port = components?.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(components?.host?.lowercased() ?? ""):\(port)"
    }
}
