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
        let fixture = try HoardFixture { $0.fetchLeaseDuration = 30 }
        defer { fixture.folder.remove() }
        let other = try fixture.reopened()
        let fetches = Fetches()
        async let first = fixture.hoard.value(forKey: "shared") { () async throws -> String in
            fetches.record()
            try await Task.sleep(for: .milliseconds(400))
            return "fetched once"
        }
        try await Task.sleep(for: .milliseconds(100))
        async let second = other.value(forKey: "shared") { () async throws -> String in
            fetches.record()
            return "fetched twice"
        }
        #expect(try await first == "fetched once")
        #expect(try await second == "fetched once")
        #expect(fetches.value == 1)
        #expect(other.statistics.sharedFetchWaits == 1)
        // Different keys do not wait for each other.
        let start = ContinuousClock.now
        async let slow = fixture.hoard.value(forKey: "slow") { () async throws -> String in
            try await Task.sleep(for: .seconds(2))
            return "slow"
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await other.value(forKey: "fast") { "fast" } == "fast")
        #expect(ContinuousClock.now - start < .seconds(2), "another key's fetch did not wait")
        _ = try await slow
    }

    @Test("a holder killed (SIGKILL) mid-fetch frees its lease at once: the waiter fetches without waiting out the lease")
    func killedHolder() async throws {
        let fixture = try HoardFixture { $0.fetchLeaseDuration = 60 }
        defer { fixture.folder.remove() }
        let path = fixture.folder.cacheURL.path(percentEncoded: false)
        let (child, output) = try StressChild.start(["hoard-fetch", path, "key", "600", "from the child"])
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
        try await Task.sleep(for: .milliseconds(300))
        #expect(fetches.value == 0, "the waiter waits while the child holds the lease")
        let killed = ContinuousClock.now
        kill(child.processIdentifier, SIGKILL)
        await BlockingCall.waitUntilExit(child)
        #expect(try await waiter.value == "from the waiter")
        #expect(ContinuousClock.now - killed < .seconds(20), "not the 60 s lease")
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
        #expect(reopened.localLeases?.acquire(forKey: "k") == .unavailable)
    }
}
