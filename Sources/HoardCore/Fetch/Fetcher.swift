import Foundation
import HoardSystem
import Logging

/// Runs the fetches of a ``Hoard``: one per key in this process, and, under leases, one per key
/// among the processes sharing the cache folder and the machines sharing a ``SharedCacheTier``.
///
/// Invariant: at most one fetch of a key runs at a time in this process, every caller waiting
/// for it receives its outcome (or its error), and only the key's current fetch stores what it
/// made: a fetch forgotten or abandoned meanwhile does not overwrite a newer value.
///
/// The fetcher knows how to coordinate, not what to read or write: its callers hand it `cached`
/// (the tiers read again under a lease) and `produce` (the fetch, and how to store its value).
final class Fetcher: Sendable {
    /// What a fetch makes: the value (decoded, or its encoding) and how to store it.
    typealias Produced = (value: any Sendable, store: @Sendable () async throws(HoardError) -> Hoard.Written?)

    /// One running fetch per key, whichever form (a decoded value or its encoding) its callers want.
    let flights = SingleFlight<ExactString, FetchOutcome>()
    /// Fetch leases among the processes sharing the cache folder; `nil` without a disk tier.
    let localLeases: LocalFetchLeases?
    /// The shared tier whose leases coordinate machines; `nil` without one.
    private let sharedTier: (any SharedCacheTier)?
    /// How long a lease holds, and the longest a caller waits for another's fetch.
    private let leaseDuration: Duration
    private let monitor: HoardMonitor
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// A fetcher for a cache configured as `configuration`, with local leases in `leaseDirectory`
    /// (the cache folder; `nil` without a disk tier) and the shared tier's leases.
    init(
        configuration: Hoard.Configuration, leaseDirectory: URL?, sharedTier: (any SharedCacheTier)?,
        monitor: HoardMonitor
    ) {
        localLeases = leaseDirectory.map { LocalFetchLeases(directory: $0, logger: configuration.logger) }
        self.sharedTier = sharedTier
        leaseDuration = .milliseconds(Int64((configuration.fetchLeaseDuration * 1000).rounded(.up)))
        self.monitor = monitor
        logger = configuration.logger
        now = configuration.now
    }

    /// The fetch of `key`: `produce` runs once per key in this process (callers of either form
    /// share it) and, with `cached`, under the leases (see ``coordinated(forKey:cached:fetch:)``),
    /// which `cached` answers instead when another process or machine stored the value meanwhile.
    /// What it makes is stored unless the fetch was forgotten or abandoned meanwhile; a store that
    /// fails is logged and handed over as ``FetchOutcome/storeError``.
    ///
    /// - Parameters:
    ///   - typeName: The type the value is recorded under.
    ///   - isEncoded: Whether `produce` makes the encoding rather than the decoded value.
    /// - Throws: What `produce` throws; `CancellationError` when this caller is cancelled.
    func run(
        forKey key: String, typeName: String, isEncoded: Bool, cached: (@Sendable () async -> FetchOutcome?)?,
        produce: @escaping @Sendable () async throws -> Produced
    ) async throws -> FetchOutcome {
        try await flights.run(key: ExactString(key), onJoin: { [monitor] in monitor.record(.fetchCoalesced(key: key)) }) {
            [self] ticket in
            let fetchAndStore = { @Sendable [self] () async throws -> FetchOutcome in
                let produced = try await produce()
                var stored: Hoard.Written?
                var storeError: HoardError?
                if ticket.isCurrent {
                    do throws(HoardError) {
                        stored = try await produced.store()
                    } catch {
                        storeError = error
                        logger.warning(
                            "Cannot store the fetched value", metadata: ["key": .string(key), "error": "\(error)"])
                    }
                }
                let record = StoredValue(
                    value: produced.value, typeName: typeName, cachedAt: stored?.cachedAt ?? now(),
                    expiresAt: stored?.expiresAt)
                return FetchOutcome(
                    value: record, source: .fetch, storeError: storeError, isEncoded: isEncoded,
                    encoding: isEncoded ? nil : stored?.bytes)
            }
            guard let cached else { return try await fetchAndStore() }
            return try await coordinated(forKey: key, cached: cached, fetch: fetchAndStore)
        }
    }

    /// Runs `fetch` once, reporting its start, its duration and its outcome.
    func reporting<T>(forKey key: String, _ fetch: @Sendable () async throws -> T) async throws -> T {
        monitor.record(.fetchStarted(key: key))
        let start = ContinuousClock.now
        do {
            let value = try await fetch()
            monitor.metrics.recordFetch(duration: ContinuousClock.now - start)
            monitor.record(.fetchSucceeded(key: key))
            return value
        } catch {
            monitor.metrics.recordFetch(duration: ContinuousClock.now - start)
            monitor.record(.fetchFailed(key: key, error: error))
            throw error
        }
    }

    /// Forgets any running fetch of `key`: its callers still get its result, which is not stored,
    /// and the next caller starts a new fetch.
    func forget(_ key: String) {
        flights.forget(ExactString(key))
    }

    // MARK: - Private

    /// How ``coordinated(forKey:cached:fetch:)`` reaches one kind of lease on its key.
    private struct LeaseAccess: Sendable {
        let acquire: @Sendable (Duration) async -> FetchLease
        let release: @Sendable (String) async -> Void
        let isHeld: @Sendable () async -> Bool?
    }

    /// Runs `fetch` under the leases on `key`, so that one process on this machine
    /// (``localLeases``) and one machine (``sharedTier``) fetches it.
    ///
    /// The holder first reads the tiers once more (another process or machine may have stored the
    /// value between this caller's miss and its lease), then fetches, and releases the lease
    /// whether the fetch succeeded or not. A caller that finds a lease held waits with back-off
    /// (25 ms doubling to 500 ms), reading the tiers after each pause: it returns the value once it
    /// is there, tries to take the lease again once it is gone without a value (its holder failed
    /// or died), and fetches on its own when its wait passes the lease's duration. The local lease
    /// is taken first, so the processes of one machine send one caller to the shared tier. Without
    /// either, or when one cannot be reached, its step is skipped.
    ///
    /// - Throws: What `fetch` throws; `CancellationError` when the caller is cancelled while waiting.
    private func coordinated(
        forKey key: String, cached: @escaping @Sendable () async -> FetchOutcome?,
        fetch: @escaping @Sendable () async throws -> FetchOutcome
    ) async throws -> FetchOutcome {
        let shared = sharedTier.map { tier in
            LeaseAccess(
                acquire: { duration in await tier.acquireFetchLease(forKey: key, duration: duration) },
                release: { token in await tier.releaseFetchLease(forKey: key, token: token) },
                isHeld: { await tier.isFetchLeaseHeld(forKey: key) })
        }
        let local = localLeases.map { leases in
            LeaseAccess(
                acquire: { _ in leases.acquire(forKey: key) }, release: { _ in leases.release(forKey: key) },
                isHeld: { leases.isHeld(forKey: key) })
        }
        let acrossMachines: @Sendable () async throws -> FetchOutcome = { [self] in
            guard let shared else { return try await fetch() }
            return try await underLease(forKey: key, shared, cached: cached, fetch: fetch)
        }
        guard let local else { return try await acrossMachines() }
        return try await underLease(forKey: key, local, cached: cached, fetch: acrossMachines)
    }

    /// `fetch` under `lease`: see ``coordinated(forKey:cached:fetch:)``.
    private func underLease(
        forKey key: String, _ lease: LeaseAccess, cached: @Sendable () async -> FetchOutcome?,
        fetch: @Sendable () async throws -> FetchOutcome
    ) async throws -> FetchOutcome {
        let clock = ContinuousClock()
        let giveUp = clock.now + leaseDuration
        var pause = Duration.milliseconds(25)
        var isWaiting = false
        while true {
            switch await lease.acquire(leaseDuration) {
            case .unavailable:
                return try await fetch()
            case .acquired(let token):
                do {
                    let outcome: FetchOutcome
                    if let found = await cached() { outcome = found } else { outcome = try await fetch() }
                    await lease.release(token)
                    return outcome
                } catch {
                    await lease.release(token)
                    throw error
                }
            case .heldElsewhere:
                if !isWaiting {
                    isWaiting = true
                    monitor.record(.waitedForSharedFetch(key: key))
                }
                repeat {
                    try await Task.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(500))
                    if let outcome = await cached() { return outcome }
                    if clock.now >= giveUp {
                        logger.warning(
                            "Waited the fetch lease's duration for another worker's value; fetching",
                            metadata: ["key": .string(key)])
                        return try await fetch()
                    }
                } while await lease.isHeld() == true
            }
        }
    }
}
