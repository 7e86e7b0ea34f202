import Foundation

extension Hoard {
    /// Runs `fetch` under ``sharedTier``'s lease on `key`, so that one machine fetches it.
    ///
    /// The holder first reads the tiers once more (another machine may have stored the value
    /// between this caller's miss and its lease), then fetches, and releases the lease whether the
    /// fetch succeeded or not. A caller that finds the lease held waits with back-off (25 ms
    /// doubling to 500 ms), reading the tiers after each pause: it returns the value once it is
    /// there, tries to take the lease again once it is gone without a value (its holder failed or
    /// died), and fetches on its own when its wait passes ``Configuration/fetchLeaseDuration``.
    /// Without a shared tier, or when it cannot be reached, this is `fetch()`.
    ///
    /// - Parameters:
    ///   - cached: A fresh value in the byte tiers (copied into the local ones), or `nil`.
    ///   - fetch: Fetches and stores the value.
    /// - Throws: What `fetch` throws; `CancellationError` when the caller is cancelled while waiting.
    func coordinatedFetch<Outcome: Sendable>(
        forKey key: String, cached: @Sendable () async -> Outcome?, fetch: @Sendable () async throws -> Outcome
    ) async throws -> Outcome {
        guard let shared = sharedTier else { return try await fetch() }
        let leaseDuration = Duration.milliseconds(Int64((configuration.fetchLeaseDuration * 1000).rounded(.up)))
        let clock = ContinuousClock()
        let giveUp = clock.now + leaseDuration
        var pause = Duration.milliseconds(25)
        var isWaiting = false
        while true {
            switch await shared.acquireFetchLease(forKey: key, duration: leaseDuration) {
            case .unavailable:
                return try await fetch()
            case .acquired(let token):
                do {
                    let outcome: Outcome
                    if let found = await cached() { outcome = found } else { outcome = try await fetch() }
                    await shared.releaseFetchLease(forKey: key, token: token)
                    return outcome
                } catch {
                    await shared.releaseFetchLease(forKey: key, token: token)
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
                } while await shared.isFetchLeaseHeld(forKey: key) == true
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
                guard self != nil else { return }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

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
