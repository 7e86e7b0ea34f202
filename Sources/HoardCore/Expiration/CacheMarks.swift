import Foundation
import HoardSystem
import Logging

/// The cache-wide marks of a ``Hoard``: the local expiration mark (``ExpirationMark``, shared by the
/// processes using the cache folder) and the marks other machines publish through the shared tier,
/// read once a second and applied to it and to the local tiers.
///
/// Invariant: the local mark only moves forward and never past this machine's clock, and each mark
/// the shared tier reports is applied here once.
final class CacheMarks: Sendable {
    /// The local mark: reads treat what was stored before it as expired.
    private let local: ExpirationMark
    /// The shared tier whose marks this applies; `nil` without one.
    private let sharedTier: (any SharedCacheTier)?
    /// The tiers another machine's removal of everything empties.
    private let chain: TierChain
    private let monitor: HoardMonitor
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// The shared tier's marks as last applied.
    private let applied = Lock(SharedCacheMarks())
    /// Reads the shared tier's marks once a second while these marks live.
    private let watch = Lock<Task<Void, Never>?>(nil)
    /// How many times the watch has read and applied the shared marks.
    private let watchRounds = Lock(0)

    /// The marks of a cache configured as `configuration`, kept in `directory` (the cache folder;
    /// `nil` without a disk tier: then in this process only), watching `chain`'s shared tier.
    init(configuration: Hoard.Configuration, directory: URL?, chain: TierChain, monitor: HoardMonitor) {
        local = ExpirationMark(
            directory: directory, refreshInterval: configuration.expirationMarkRefreshInterval,
            logger: configuration.logger, now: configuration.now)
        sharedTier = chain.sharedTier
        self.chain = chain
        self.monitor = monitor
        logger = configuration.logger
        now = configuration.now
        if sharedTier != nil {
            watch.withLock { $0 = watchSharedMarks() }
        }
    }

    deinit {
        watch.withLock { $0?.cancel() }
    }

    /// The local mark, or `nil` when nothing has been expired.
    func current() -> Date? {
        local.current()
    }

    /// Expires everything stored until now: on other machines first (through the shared tier), then
    /// here.
    ///
    /// - Returns: The mark now in force.
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the mark file cannot be written; the mark still
    ///   applies in this process.
    func expireAll() async throws -> Date {
        let now = now()
        // Other machines first: a local mark file that cannot be written still applies here.
        await sharedTier?.publishExpiration(before: now)
        return try local.advance(to: now)
    }

    /// Records that a removal of everything, which the shared tier published for other machines,
    /// has been applied here, so that reading it back does not empty the tiers again.
    func recordRemovedAll() {
        guard sharedTier != nil else { return }
        advance(to: now())
    }

    /// Applies the marks that other machines published through the shared tier: a newer
    /// ``Hoard/removeAll()`` removes what the local tiers hold from before it (memory entirely), a
    /// newer ``Hoard/expireAll()`` moves the local mark.
    ///
    /// The local mark (kept in the cache folder, so it survives restarts) records what has been
    /// applied: a remote removal older than it was applied before, or is covered by it. A mark
    /// ahead of this machine's clock is applied at this moment.
    func applySharedMarks() async {
        guard let shared = sharedTier, let marks = await shared.sharedMarks() else { return }
        let new = applied.withLock { applied -> SharedCacheMarks in
            defer { applied = marks }
            return SharedCacheMarks(
                expiredBefore: marks.expiredBefore == applied.expiredBefore ? nil : marks.expiredBefore,
                removedBefore: marks.removedBefore == applied.removedBefore ? nil : marks.removedBefore)
        }
        let now = now()
        if let removedBefore = new.removedBefore.map({ min($0, now) }), local.current().map({ removedBefore > $0 }) ?? true {
            await chain.removeLocalEntries(createdBefore: removedBefore)
            advance(to: removedBefore)
            monitor.record(.removedAll)
        }
        if let expiredBefore = new.expiredBefore.map({ min($0, now) }), expiredBefore > (local.current() ?? .distantPast) {
            advance(to: expiredBefore)
            monitor.record(.expiredAll(before: expiredBefore))
        }
    }

    /// How many times the watch has read and applied the shared tier's marks.
    var rounds: Int { watchRounds.withLock { $0 } }

    // MARK: - Private

    /// A task that calls ``applySharedMarks()`` once a second until it is cancelled or the marks
    /// are gone (it holds them weakly between rounds).
    private func watchSharedMarks() -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                await self?.applySharedMarks()
                // Not `guard let self`: the watch must not keep the marks alive through its sleep.
                guard self?.watchRounds.withLock({ $0 += 1 }) != nil else { return }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Moves the local mark; a mark file that cannot be written is logged (the mark still applies
    /// in this process).
    private func advance(to date: Date) {
        do {
            try local.advance(to: min(date, now()))
        } catch {
            logger.warning("Cannot write the expiration mark", metadata: ["error": "\(error)"])
        }
    }
}
