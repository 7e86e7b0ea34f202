import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

@Suite("SingleFlight")
struct SingleFlightTests {
    @Test("a caller cancelled before it waits throws at once and starts nothing")
    func cancelledBeforeWaiting() async throws {
        let flights = SingleFlight<String, Int>()
        let probe = FetchProbe()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flights.run(key: "k") { _ in try await probe.call { $0 } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(probe.calls == 0)
        #expect(try await flights.run(key: "k") { _ in try await probe.call { $0 } } == 1)
    }

    @Test("joiners are told they joined; the ticket stays current until the key is forgotten")
    func joinAndTicket() async throws {
        let flights = SingleFlight<String, Bool>()
        let gate = Gate()
        let joins = HoardCompletionTests.Counter()
        let first = Task {
            try await flights.run(key: "k") { ticket in
                try await gate.wait()
                return ticket.isCurrent
            }
        }
        #expect(await eventually { flights.waiterCount(forKey: "k") == 1 })
        let second = Task {
            // Its own work would return true: false means it got the first run's result.
            try await flights.run(key: "k", onJoin: { joins.record("joined") }) { _ in true }
        }
        #expect(await eventually { flights.waiterCount(forKey: "k") == 2 })
        flights.forget("k")
        #expect(flights.waiterCount(forKey: "k") == 0)
        gate.open()
        #expect(try await first.value == false)
        #expect(try await second.value == false)
        #expect(joins.all == ["joined"])
    }
}
