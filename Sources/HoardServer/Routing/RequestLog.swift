import HTTPTypes
import HoardSystem
import Logging

/// Times, counts and logs the answered image requests, whichever path answered them: the routes
/// (through ``ImageRequestMiddleware``) or a connection's ``CachedAnswerHandler``. One line each at
/// `info`, with the request id the context's logger carries.
///
/// Invariant: the in-flight gauge counts the requests the routes have begun and not yet answered.
final class RequestLog: Sendable {
    /// Where the counts and times go; `nil` without a registry.
    let metrics: ServerMetrics?
    private let logger: Logger
    private let inFlight = Lock(0)
    /// How many decodes wait, reported with the in-flight count.
    private let queueLength: @Sendable () -> Int

    init(metrics: ServerMetrics?, logger: Logger, queueLength: @escaping @Sendable () -> Int) {
        self.metrics = metrics
        self.logger = logger
        self.queueLength = queueLength
    }

    /// Counts a request the routes begin (`+1`) or have answered (`-1`), and reports the count with
    /// the decode queue's length.
    func changeInFlight(by change: Int) {
        let requests = inFlight.withLock { count in
            count += change
            return count
        }
        metrics?.record(inFlight: requests, queueLength: queueLength())
    }

    /// Counts and logs an answered image request.
    func answered(
        method: String, path: String, accept: String?, status: HTTPResponse.Status, contentType: String?,
        since started: ContinuousClock.Instant, logger: Logger
    ) {
        let elapsed = ContinuousClock.now - started
        metrics?.count(status: status.code)
        metrics?.record(.total, elapsed)
        logger.info(
            "\(method)",
            metadata: [
                "path": .string(path), "status": .stringConvertible(status.code), "type": .string(contentType ?? "-"),
                "accept": .string(accept ?? "-"), "ms": .stringConvertible(elapsed.milliseconds),
            ])
    }
}
