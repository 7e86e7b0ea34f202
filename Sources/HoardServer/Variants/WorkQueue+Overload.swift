import HoardSystem

extension WorkQueue {
    /// Runs `body` as ``HoardSystem/WorkQueue/run(_:)`` does, with a full queue (here or in a queue
    /// `body` waits in) refused as ``ServeError/overloaded(retryAfter:)``: a 503 the client may
    /// retry after a second.
    func runOrRefuse<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await run(body)
        } catch is WorkQueue.Full {
            throw ServeError.overloaded(retryAfter: 1)
        }
    }
}
