import Foundation
import Hoard
import HoardSystem

/// An error a test fetch throws.
struct FetchFailure: Error, Equatable, CustomStringConvertible {
    var reason = "offline"
    var description: String { "fetch failed: \(reason)" }
}

/// Counts the calls of a test fetch and can make it fail or wait.
final class FetchProbe: Sendable {
    private struct State {
        var calls = 0
        var failing = false
        var cancellationsSeen = 0
    }

    private let state = Lock(State())
    /// Fetches wait on it when it is set (they throw `CancellationError` if cancelled meanwhile).
    let gate: Gate?

    init(gated: Bool = false) {
        gate = gated ? Gate() : nil
    }

    var calls: Int { state.withLock { $0.calls } }
    /// How many fetches saw their task cancelled while they waited.
    var cancellationsSeen: Int { state.withLock { $0.cancellationsSeen } }

    /// Makes the following fetches throw ``FetchFailure``, or succeed again.
    func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    /// A fetch that returns `"<prefix><call number>"`: `"v1"`, `"v2"`, ...
    func fetch(_ prefix: String = "v") -> @Sendable () async throws -> String {
        { try await self.call { "\(prefix)\($0)" } }
    }

    /// Counts a call, waits for the gate if any, then fails or returns `make(call number)`.
    func call<T>(_ make: (Int) -> T) async throws -> T {
        let (number, failing) = state.withLock { state in
            state.calls += 1
            return (state.calls, state.failing)
        }
        if let gate {
            do {
                try await gate.wait()
            } catch {
                state.withLock { $0.cancellationsSeen += 1 }
                throw error
            }
        }
        if failing { throw FetchFailure() }
        return make(number)
    }
}
