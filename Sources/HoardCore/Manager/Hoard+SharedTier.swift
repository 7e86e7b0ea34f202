import Foundation

extension Hoard {
    /// Runs `fetch` under the leases on `key`, so that one process on this machine
    /// (``localLeases``) and one machine (``sharedTier``) fetches it.
    ///
    /// The holder first reads the tiers once more (another process or machine may have stored the
    /// value between this caller's miss and its lease), then fetches, and releases the lease
    /// whether the fetch succeeded or not. A caller that finds a lease held waits with back-off
    /// (25 ms doubling to 500 ms), reading the tiers after each pause: it returns the value once it
    /// is there, tries to take the lease again once it is gone without a value (its holder failed
    /// or died), and fetches on its own when its wait passes ``Configuration/fetchLeaseDuration``.
    /// The local lease is taken first, so the processes of one machine send one caller to the
    /// shared tier. Without either, or when one cannot be reached, its step is skipped.
    ///
    /// - Parameters:
    ///   - cached: A fresh value in the byte tiers (copied into the local ones), or `nil`.
    ///   - fetch: Fetches and stores the value.
    /// - Throws: What `fetch` throws; `CancellationError` when the caller is cancelled while waiting.
    func coordinatedFetch<Outcome: Sendable>(
        forKey key: String, cached: @escaping @Sendable () async -> Outcome?,
        fetch: @escaping @Sendable () async throws -> Outcome
    ) async throws -> Outcome {
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
        let acrossMachines: @Sendable () async throws -> Outcome = { [self] in
            guard let shared else { return try await fetch() }
            return try await fetchUnderLease(forKey: key, shared, cached: cached, fetch: fetch)
        }
        guard let local else { return try await acrossMachines() }
        return try await fetchUnderLease(forKey: key, local, cached: cached, fetch: acrossMachines)
    }

    /// How ``coordinatedFetch(forKey:cached:fetch:)`` reaches one kind of lease on its key.
    struct LeaseAccess: Sendable {
        let acquire: @Sendable (Duration) async -> FetchLease
        let release: @Sendable (String) async -> Void
        let isHeld: @Sendable () async -> Bool?
    }

    /// `fetch` under `lease`: see ``coordinatedFetch(forKey:cached:fetch:)``.
    private func fetchUnderLease<Outcome: Sendable>(
        forKey key: String, _ lease: LeaseAccess, cached: @Sendable () async -> Outcome?,
        fetch: @Sendable () async throws -> Outcome
    ) async throws -> Outcome {
        let leaseDuration = Duration.milliseconds(Int64((configuration.fetchLeaseDuration * 1000).rounded(.up)))
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
                    let outcome: Outcome
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

    /// Applies the marks that other machines published through ``sharedTier``: a newer
    /// ``removeAll()`` removes what the local tiers hold from before it (memory entirely), a
    /// newer ``expireAll()`` moves the local mark.
    ///
    /// The local expiration mark (kept in the cache folder, so it survives restarts) records what
    /// has been applied: a remote removal older than it was applied before, or is covered by it.
    /// Each mark the tier reports is applied once, and one ahead of this machine's clock is
    /// applied at this moment: the local mark never lies in the future.
    func applySharedMarks() async {
        guard let shared = sharedTier, let marks = await shared.sharedMarks() else { return }
        let new = appliedSharedMarks.withLock { applied -> SharedCacheMarks in
            defer { applied = marks }
            return SharedCacheMarks(
                expiredBefore: marks.expiredBefore == applied.expiredBefore ? nil : marks.expiredBefore,
                removedBefore: marks.removedBefore == applied.removedBefore ? nil : marks.removedBefore)
        }
        let now = configuration.now()
        let local = expirationMark.current()
        if let removedBefore = new.removedBefore.map({ min($0, now) }), local.map({ removedBefore > $0 }) ?? true {
            memory.removeAll()
            for tier in tiers.prefix(while: { !($0 is any SharedCacheTier) }) {
                do {
                    try await tier.removeEntries(createdBefore: removedBefore)
                } catch {
                    logger.warning(
                        "Cannot apply another machine's removeAll() to a local tier",
                        metadata: ["tier": .string(tier.identifier.rawValue), "error": "\(error)"])
                }
            }
            advanceMark(to: removedBefore)
            monitor.record(.removedAll)
        }
        if let expiredBefore = new.expiredBefore.map({ min($0, now) }),
            expiredBefore > (expirationMark.current() ?? .distantPast)
        {
            advanceMark(to: expiredBefore)
            monitor.record(.expiredAll(before: expiredBefore))
        }
    }

    /// A task that calls ``applySharedMarks()`` once a second until it is cancelled or the cache
    /// is gone (it holds the cache weakly between rounds).
    func watchSharedMarks() -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                await self?.applySharedMarks()
                // Not `guard let self`: the watch must not keep the cache alive through its sleep.
                guard self?.markWatchRounds.withLock({ $0 += 1 }) != nil else { return }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// How many times this cache has read and applied its shared tier's marks (once a second):
    /// for a test that waits for the watch to have seen what it did.
    package var sharedMarkWatchRounds: Int { markWatchRounds.withLock { $0 } }

    /// Moves the local expiration mark; a mark file that cannot be written is logged (the mark
    /// still applies in this process).
    func advanceMark(to date: Date) {
        do {
            try expirationMark.advance(to: min(date, configuration.now()))
        } catch {
            logger.warning("Cannot write the expiration mark", metadata: ["error": "\(error)"])
        }
    }
}
