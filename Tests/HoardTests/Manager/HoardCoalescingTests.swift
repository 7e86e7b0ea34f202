import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

@Suite("Hoard fetching: one request per key")
struct HoardCoalescingTests {
    @Test("1,000 concurrent callers that miss run the fetch once and all get its value; later calls hit the cache")
    func thousandCallers() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        let callers = 1_000
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<callers {
                group.addTask { try await hoard.value(forKey: "shared", fetch: probe.fetch()) }
            }
            // Everyone is waiting on the one fetch before it is allowed to finish.
            #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "shared") == callers })
            probe.gate?.open()
            var results: [String] = []
            for try await value in group { results.append(value) }
            #expect(results.count == callers && results.allSatisfy { $0 == "v1" })
        }
        #expect(probe.calls == 1)
        let statistics = hoard.statistics
        #expect(statistics.fetches == 1)
        #expect(statistics.coalescedFetches == callers - 1)
        #expect(try await hoard.entry(forKey: "shared", fetch: probe.fetch()).source == .memory)
        #expect(probe.calls == 1)
    }

    @Test("a decoded and an encoded fetch of one key share one run, each caller getting its own form")
    func decodedAndEncodedShareOneFetch() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        let decoded = Task { try await hoard.value(forKey: "both", fetch: probe.fetch()) }
        let encoded = Task {
            try await hoard.encodedEntry(String.self, forKey: "both") { try await Data(probe.fetch("e")().utf8) }
        }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "both") == 2 })
        probe.gate?.open()
        let value = try await decoded.value
        let bytes = try await encoded.value
        #expect(probe.calls == 1, "one fetch for both forms")
        #expect(bytes.value == Data(value.utf8), "the encoded caller gets the decoded caller's value's encoding")
        #expect(try await hoard.retrieve(String.self, forKey: "both") == value)
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "both") == Data(value.utf8))
    }

    @Test("an encoded fetch's bytes reach a decoded caller decoded; bytes that do not decode are its error")
    func encodedFetchServesDecodedCaller() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        let encoded = Task {
            try await hoard.encodedEntry(String.self, forKey: "k") { try await Data(probe.fetch("e")().utf8) }
        }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "k") == 1 })
        let decoded = Task { try await hoard.value(forKey: "k", fetch: probe.fetch()) }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "k") == 2 })
        probe.gate?.open()
        #expect(try await encoded.value.value == Data("e1".utf8))
        #expect(try await decoded.value == "e1")
        #expect(probe.calls == 1)

        let second = FetchProbe(gated: true)
        let invalid = Task {
            try await hoard.encodedEntry(String.self, forKey: "bad") { try await second.call { _ in Data([0xFF, 0xFE]) } }
        }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "bad") == 1 })
        let reader = Task { try await hoard.value(forKey: "bad", fetch: second.fetch()) }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "bad") == 2 })
        second.gate?.open()
        #expect(try await invalid.value.value == Data([0xFF, 0xFE]))
        await #expect(throws: (any Error).self) { try await reader.value }
    }

    @Test("concurrent callers share the fetch's error too; the error is not cached")
    func sharedError() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        probe.setFailing(true)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await hoard.value(forKey: "k", fetch: probe.fetch())
                        return false
                    } catch {
                        return error is FetchFailure
                    }
                }
            }
            #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "k") == 10 })
            probe.gate?.open()
            for await failedWithFetchError in group { #expect(failedWithFetchError) }
        }
        #expect(probe.calls == 1)
        probe.setFailing(false)
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v2")
    }

    @Test("cancelling one waiter does not cancel the fetch for the others")
    func cancelOneWaiter() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        let first = Task { try await hoard.value(forKey: "k", fetch: probe.fetch()) }
        let second = Task { try await hoard.value(forKey: "k", fetch: probe.fetch()) }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "k") == 2 })
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(hoard.fetcher.flights.waiterCount(forKey: "k") == 1)
        probe.gate?.open()
        #expect(try await second.value == "v1")
        #expect(probe.calls == 1 && probe.cancellationsSeen == 0)
        #expect(try await hoard.retrieve(String.self, forKey: "k") == "v1")
    }

    @Test("cancelling every waiter cancels the fetch; the next call starts a new one")
    func cancelAllWaiters() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let probe = FetchProbe(gated: true)
        let waiters = (0..<3).map { _ in Task { try await hoard.value(forKey: "k", fetch: probe.fetch()) } }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "k") == 3 })
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            await #expect(throws: CancellationError.self) { try await waiter.value }
        }
        #expect(await eventually { probe.cancellationsSeen == 1 })
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
        probe.gate?.open()
        #expect(try await hoard.value(forKey: "k", fetch: probe.fetch()) == "v2")
        #expect(probe.calls == 2)
    }

    @Test("reset forgets the cached value and the running fetch; the forgotten fetch does not store")
    func reset() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        // The cached value is forgotten.
        try await hoard.store("cached", forKey: "k")
        let counter = FetchProbe()
        #expect(try await hoard.value(forKey: "k", reset: true, fetch: counter.fetch()) == "v1")
        #expect(counter.calls == 1)
        // The running fetch is forgotten: its waiter still gets its value, the new call its own.
        let slow = FetchProbe(gated: true)
        let waiting = Task { try await hoard.value(forKey: "r", fetch: slow.fetch("slow")) }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "r") == 1 })
        #expect(try await hoard.value(forKey: "r", reset: true, fetch: counter.fetch("new")) == "new2")
        slow.gate?.open()
        #expect(try await waiting.value == "slow1")
        #expect(try await hoard.retrieve(String.self, forKey: "r") == "new2")
    }

    @Test("calls for different keys do not wait for each other")
    func keysAreIndependent() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let blocked = FetchProbe(gated: true)
        let waiting = Task { try await hoard.value(forKey: "slow", fetch: blocked.fetch()) }
        #expect(await eventually { hoard.fetcher.flights.waiterCount(forKey: "slow") == 1 })
        #expect(try await hoard.value(forKey: "fast", fetch: FetchProbe().fetch()) == "v1")
        blocked.gate?.open()
        #expect(try await waiting.value == "v1")
    }
}
