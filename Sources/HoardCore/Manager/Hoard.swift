import CoreMetrics
import Foundation
import HoardSystem
import Logging

/// A tiered cache of ``Cachable`` values: decoded values in memory, their bytes in the ordered
/// list of byte tiers in ``Configuration/tiers`` (by default the disk alone).
///
/// Reads check memory first, then each byte tier in order; a hit is decoded, copied into the
/// tiers before the one that had it and into memory with its remaining expiry, and returned.
/// Writes go through every byte tier (the disk atomically, crash-safe) and then to memory. Every
/// stored entry records the Swift type it was stored as, so reading it back as another type
/// throws ``HoardError/typeMismatch(key:expected:stored:)`` instead of reinterpreting its bytes.
///
/// ```swift
/// let hoard = try Hoard(configuration: .init(name: "thumbnails"))
/// try await hoard.store(thumbnail, forKey: url.absoluteString, expiry: .seconds(86_400))
/// let cached: Image? = try await hoard.retrieve(forKey: url.absoluteString)
/// ```
///
/// To fetch through the cache (one fetch per key, a ``CachePolicy``, memoization), see
/// ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` and <doc:FetchingThroughTheCache>:
///
/// ```swift
/// let avatar = try await hoard.value(forKey: url.absoluteString) { try await download(url) }
/// ```
///
/// `Hoard.shared` is the `"default"` cache under the XDG cache folder
/// (`$XDG_CACHE_HOME/hoard/default`, else `~/.cache/hoard/default`).
///
/// This type is a façade over parts that each own their state and keep one invariant:
///
/// | part | owns | invariant |
/// |---|---|---|
/// | `TierChain` (`Tiers/`) | memory and the byte tiers | a read answers from the first tier with a fresh entry of the expected type and copies it, with its dates, into every tier before that one; a write reaches every byte tier, in order, before memory |
/// | `Fetcher` (`Fetch/`) | running fetches, the machine's and the fleet's leases | one fetch of a key at a time; every waiter gets its outcome; only the current fetch stores |
/// | `CacheMarks` (`Expiration/`) | the expiration mark, the shared tier's marks | the mark only moves forward, never past this machine's clock; each shared mark is applied once |
/// | `HoardMonitor` (`Monitoring/`) | statistics, event streams, metrics, the debug log | every event is counted and delivered in the order it happened |
///
/// The manager's own code is the order of steps: one read path for decoded values and encoded
/// bytes (memory, then the byte tiers; a byte hit decoded and promoted), one write path, one fetch
/// path for both forms.
public final class Hoard: Sendable {
    /// The `"default"` cache in the default folder, with default limits.
    ///
    /// If its folder cannot be created, the memory tier still works and every operation that needs
    /// the disk throws ``HoardError/tier(_:underlying:)`` saying why.
    public static let shared = Hoard(resolving: Configuration())

    /// The settings this cache was created with.
    public let configuration: Configuration

    /// The folder that holds the disk tier.
    public let directory: URL

    /// Memory and the byte tiers: where records are read, written and promoted.
    let chain: TierChain
    /// One fetch per key, here, on this machine and across machines.
    let fetcher: Fetcher
    /// Events: statistics, observers' streams, metrics and the debug log.
    let monitor: HoardMonitor
    /// The expiration mark and the shared tier's marks applied to it.
    let marks: CacheMarks
    /// Keeps the completion-handler calls on each key in the caller's order.
    let completionQueue = KeyedSerialQueue()
    let logger: Logger

    /// Opens (or creates) the cache that `configuration` describes.
    ///
    /// Two `Hoard` instances, in one process or several, may use the same folder at once.
    ///
    /// - Parameter configuration: Name, folder, limits, default expiry, JPEG quality, logger, clock.
    /// - Throws: ``HoardError/invalidName(_:)`` for a name that is empty or could leave its folder;
    ///   ``HoardError/invalidValue(_:)`` naming a limit, quality, interval or expiry it cannot use
    ///   (a disk limit of 0, a negative memory limit, a JPEG quality outside 1...100, a directory
    ///   that is not a file URL, an interval or expiry that is not finite); ``HoardError/tier(_:underlying:)``
    ///   when the folder cannot be created or is not a cache.
    public convenience init(configuration: Configuration) throws {
        try configuration.validate()
        self.init(resolving: configuration)
        guard configuration.listsDisk else { return }
        if case .failure(let error) = disk { throw error }
    }

    /// Creates the parts; a disk tier that cannot open is kept as its error.
    init(resolving configuration: Configuration) {
        self.configuration = configuration
        self.directory = configuration.resolvedDirectory
        self.logger = configuration.logger
        let tierOrder = [CacheTierIdentifier.memory] + configuration.tiers.map(\.identifier)
        let metrics = HoardMetrics(
            cacheName: configuration.name, tiers: tierOrder,
            factory: configuration.metricsFactory ?? MetricsSystem.factory)
        let monitor = HoardMonitor(logger: configuration.logger, metrics: metrics, tierOrder: tierOrder)
        self.monitor = monitor
        chain = TierChain(configuration: configuration) { monitor.record(.evicted(tier: .disk, count: $0)) }
        // Marks and local leases live in the cache folder, when there is one.
        let folder: URL? = if case .success = chain.disk { directory } else { nil }
        fetcher = Fetcher(
            configuration: configuration, leaseDirectory: folder, sharedTier: chain.sharedTier, monitor: monitor)
        marks = CacheMarks(configuration: configuration, directory: folder, chain: chain, monitor: monitor)
    }

    deinit {
        monitor.finishAll()
    }

    /// The disk tier, or why there is none: for what only the disk does (listing, trimming).
    var disk: Result<DiskCache, HoardError> { chain.disk }

    /// Runs `body` on the disk tier, turning its errors into ``HoardError/tier(_:underlying:)``.
    func onDisk<Result>(_ body: (DiskCache) throws -> Result) throws(HoardError) -> Result {
        let cache = try disk.get()
        do {
            return try body(cache)
        } catch {
            throw HoardError(tier: .disk, wrapping: error)
        }
    }
}
