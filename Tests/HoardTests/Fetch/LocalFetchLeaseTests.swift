import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// One fetch per key among the processes (and caches) sharing a folder, through
/// `<folder>/fetch-leases`.
@Suite("Local fetch leases")
struct LocalFetchLeaseTests {
    /// Counts fetches from several caches' closures.
    final class Fetches: Sendable {
        private let count = Lock(0)
        var value: Int { count.withLock { $0 } }
        func record() { count.withLock { $0 += 1 } }
    }

    @Test("two caches on one folder: concurrent misses on one key make one fetch; the other reads its value")
    func twoCachesOneFetch() async throws {
        let fixture = try HoardFixture { $0.fetchLeaseDuration = 3_600 }
        defer { fixture.folder.remove() }
        let other = try fixture.reopened()
        let fetches = Fetches()
        let gate = AsyncStream.makeStream(of: Void.self)
        async let first = fixture.hoard.value(forKey: "shared") { () async -> String in
            fetches.record()
            for await _ in gate.stream { break }
            return "fetched once"
        }
        #expect(await eventually { fetches.value == 1 }, "the first fetch runs and holds the lease")
        async let second = other.value(forKey: "shared") { () async -> String in
            fetches.record()
            return "fetched twice"
        }
        #expect(await eventually { other.statistics.sharedFetchWaits == 1 }, "the second waits on the lease")
        gate.continuation.yield()
        #expect(try await first == "fetched once")
        #expect(try await second == "fetched once")
        #expect(fetches.value == 1)
        // Different keys do not wait for each other: a fetch of another key while "slow" is held
        // runs at once, without a wait.
        let slowGate = AsyncStream.makeStream(of: Void.self)
        async let slow = fixture.hoard.value(forKey: "slow") { () async -> String in
            fetches.record()
            for await _ in slowGate.stream { break }
            return "slow"
        }
        #expect(await eventually { fetches.value == 2 })
        #expect(try await other.value(forKey: "fast") { "fast" } == "fast")
        #expect(other.statistics.sharedFetchWaits == 1, "no wait for another key")
        slowGate.continuation.yield()
        #expect(try await slow == "slow")
    }

    @Test(
        "a holder killed (SIGKILL) mid-fetch frees its lease at once: the waiter fetches without waiting out the lease",
        .timeLimit(.minutes(10)))
    func killedHolder() async throws {
        // An hour's lease: a waiter that finishes at all was freed by the kill, not by the bound.
        let fixture = try HoardFixture { $0.fetchLeaseDuration = 3_600 }
        defer { fixture.folder.remove() }
        let path = fixture.folder.cacheURL.path(percentEncoded: false)
        let (child, output) = try StressChild.start(["hoard-fetch", path, "key", "3600", "from the child"])
        // Wait until the child's fetch runs (it holds the lease).
        let line = await BlockingCall.readLine(output.fileHandleForReading)
        #expect(line == "fetching")
        let fetches = Fetches()
        let waiter = Task {
            try await fixture.hoard.value(forKey: "key") { () async throws -> String in
                fetches.record()
                return "from the waiter"
            }
        }
        #expect(await eventually { fixture.hoard.statistics.sharedFetchWaits == 1 }, "the waiter waits on the child")
        #expect(fetches.value == 0)
        let killed = ContinuousClock.now
        kill(child.processIdentifier, SIGKILL)
        await BlockingCall.waitUntilExit(child)
        #expect(try await waiter.value == "from the waiter")
        #expect(ContinuousClock.now - killed < .seconds(1_800), "freed by the kill, not by the hour's lease")
        #expect(fetches.value == 1)
    }

    @Test("the lease file is the cache's: a link in its place is not followed, and callers then fetch on their own")
    func linkInPlace() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let target = fixture.folder.url.appending(path: "elsewhere")
        try Data("theirs".utf8).write(to: target)
        let leasePath = fixture.folder.cacheURL.appending(path: LocalFetchLeases.fileName)
        try FileManager.default.createSymbolicLink(at: leasePath, withDestinationURL: target)
        let reopened = try fixture.reopened()
        #expect(try await reopened.value(forKey: "k") { "fetched" } == "fetched")
        #expect(try Data(contentsOf: target) == Data("theirs".utf8))
        #expect(reopened.fetcher.localLeases?.acquire(forKey: "k") == .unavailable)
    }
}
