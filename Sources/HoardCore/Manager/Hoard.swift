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

    let memory: MemoryCache<ExactString, StoredValue>
    /// The disk tier, or why there is none (it could not open, or is not configured): for what
    /// only the disk does (listing, trimming).
    let disk: Result<DiskCache, HoardError>
    /// The byte tiers after memory, in read order: the configuration's ``Configuration/tiers``.
    let tiers: [any CacheTier]
    /// The disk tier when it is the first of ``tiers`` (the usual order): reads ask it directly,
    /// without the suspension point and task frame of ``CacheTier/entry(forKey:)``.
    let firstTierDisk: DiskCache?
    /// The first shared tier among ``tiers``: it coordinates fetches and cache-wide marks.
    let sharedTier: (any SharedCacheTier)?
    /// Reads ``sharedTier``'s marks once a second while this cache lives.
    private let markWatch = Lock<Task<Void, Never>?>(nil)
    /// How many times the watch has read and applied the shared marks.
    let markWatchRounds = Lock(0)
    let logger: Logger
    /// Statistics, observers' event streams and the debug log.
    let monitor: HoardMonitor
    /// One running fetch per key, whichever form (a decoded value or its encoding) its callers want.
    let flights = SingleFlight<ExactString, FetchOutcome>()
    /// What ``expireAll()`` set, here or in another process.
    let expirationMark: ExpirationMark
    /// Keeps the completion-handler calls on each key in the caller's order.
    let completionQueue = KeyedSerialQueue()
    /// Fetch leases among the processes sharing the cache folder; `nil` without a disk tier.
    let localLeases: LocalFetchLeases?
    /// The shared tier's marks as last applied (see ``applySharedMarks()``).
    let appliedSharedMarks = Lock(SharedCacheMarks())

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

    /// Creates the tiers; a disk tier that cannot open is kept as its error.
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
        memory = MemoryCache(
            validated: .init(
                countLimit: configuration.memoryCountLimit,
                costLimit: configuration.memoryCostLimit,
                evictionPolicy: configuration.memoryEvictionPolicy,
                now: configuration.now))
        disk = Self.openDisk(configuration, monitor: monitor)
        tiers = configuration.tiers.map { [disk] tier in
            switch tier.kind {
            case .custom(let tier): tier
            case .disk:
                switch disk {
                case .success(let cache): cache
                case .failure(let error): UnavailableTier(identifier: .disk, error: error)
                }
            }
        }
        firstTierDisk =
            if case .disk = configuration.tiers.first?.kind, case .success(let cache) = disk { cache } else { nil }
        sharedTier = tiers.lazy.compactMap { $0 as? any SharedCacheTier }.first
        let markDirectory: URL? = if case .success = disk { directory } else { nil }
        localLeases = markDirectory.map { LocalFetchLeases(directory: $0, logger: configuration.logger) }
        expirationMark = ExpirationMark(
            directory: markDirectory, refreshInterval: configuration.expirationMarkRefreshInterval,
            logger: configuration.logger, now: configuration.now)
        if sharedTier != nil {
            markWatch.withLock { $0 = watchSharedMarks() }
        }
    }

    deinit {
        markWatch.withLock { $0?.cancel() }
        monitor.finishAll()
    }

    /// The disk tier `configuration` lists, opened; or why there is none.
    private static func openDisk(_ configuration: Configuration, monitor: HoardMonitor) -> Result<DiskCache, HoardError> {
        guard configuration.listsDisk else {
            return .failure(.tierNotConfigured(.disk))
        }
        var diskConfiguration = DiskCache.Configuration(sizeLimit: configuration.diskSizeLimit)
        diskConfiguration.writeLockTimeout = configuration.diskWriteLockTimeout
        diskConfiguration.logger = configuration.logger
        diskConfiguration.now = configuration.now
        diskConfiguration.onTrim = { monitor.record(.evicted(tier: .disk, count: $0)) }
        do {
            return .success(try DiskCache(directory: configuration.resolvedDirectory, configuration: diskConfiguration))
        } catch {
            return .failure(HoardError(tier: .disk, wrapping: error))
        }
    }

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

/// A decoded value with its type and dates: what the memory tier keeps for a key, and what a fetch
/// hands to every caller that waited for it.
///
/// A class: a memory hit copies a reference out of the memory tier, one retain, where a struct
/// would copy an existential through its value witnesses.
final class StoredValue: Sendable {
    let value: any Sendable
    let typeName: String
    let cachedAt: Date
    let expiresAt: Date?

    init(value: any Sendable, typeName: String, cachedAt: Date, expiresAt: Date?) {
        self.value = value
        self.typeName = typeName
        self.cachedAt = cachedAt
        self.expiresAt = expiresAt
    }
}

/// What a shared fetch hands to every caller that waited for it: the value and where it came from
/// (``CacheTierIdentifier/fetch``, or the tier where another machine's fetch stored it).
///
/// A fetch produces a decoded value (``Hoard/value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``)
/// or its encoding (``Hoard/encodedEntry(_:forKey:expiry:fetch:)``); callers of either kind share
/// it, each taking its own form (see ``decoded(as:forKey:)`` and ``encoding(of:options:forKey:)``).
struct FetchOutcome: Sendable {
    /// The value and its type's name; with ``isEncoded``, `value.value` is its encoding (a `Data`).
    let value: StoredValue
    let source: CacheTierIdentifier
    /// Why the fetched value could not be stored (logged), or `nil`.
    var storeError: HoardError? = nil
    /// Whether ``value`` holds the encoding rather than the decoded value.
    var isEncoded = false
    /// The encoding of a decoded value, when it was made (to store it).
    var encoding: Data? = nil

    /// The value as `T`, decoding an encoding.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the fetch was of another
    ///   type; the decoder's error for an encoding that does not decode.
    func decoded<T: Cachable>(as type: T.Type, forKey key: String) throws -> T {
        let expected = T.cacheTypeIdentifier
        if !isEncoded, let decoded = value.value as? T { return decoded }
        guard isEncoded, value.typeName == expected, let bytes = value.value as? Data else {
            throw HoardError.typeMismatch(key: key, expected: expected, stored: value.typeName)
        }
        return try T.decode(bytes)
    }

    /// The value's encoding, for a caller that asked for bytes of type `typeName`: the fetched
    /// bytes, the ones stored, or (when the store was skipped) the value encoded with `options`.
    ///
    /// - Throws: ``HoardError/typeMismatch(key:expected:stored:)`` when the fetch was of another
    ///   type; ``HoardError/encodingFailed(key:type:underlying:)``.
    func encoding(of typeName: String, options: CachableEncodingOptions, forKey key: String) throws(HoardError) -> Data {
        guard value.typeName == typeName else {
            throw .typeMismatch(key: key, expected: typeName, stored: value.typeName)
        }
        if isEncoded, let bytes = value.value as? Data { return bytes }
        if let encoding { return encoding }
        guard let cachable = value.value as? any Cachable else {
            throw .typeMismatch(key: key, expected: typeName, stored: value.typeName)
        }
        do {
            return try cachable.encode(with: options)
        } catch {
            throw .encodingFailed(key: key, type: typeName, underlying: error)
        }
    }
}
