import CoreMetrics
import Foundation
import HoardSystem
import Logging

extension Hoard {
    /// The settings of a ``Hoard``: where it keeps its files, how much it keeps, and for how long.
    ///
    /// ```swift
    /// var configuration = Hoard.Configuration(name: "avatars")
    /// configuration.diskSizeLimit = 100 * 1024 * 1024
    /// configuration.defaultExpiry = .seconds(7 * 86_400)
    /// let avatars = try Hoard(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The cache's name: its folder under the default location. Letters, digits, `.`, `-`, `_`.
        public var name: String
        /// The folder for the disk tier; `nil` means ``defaultDirectory(name:)``.
        public var directory: URL?
        /// The most values the memory tier keeps (default 1,000).
        public var memoryCountLimit: Int
        /// The most bytes the memory tier keeps (default 64 MiB): pixel bytes for images, encoded
        /// bytes for other values.
        public var memoryCostLimit: Int
        /// Which memory entries go first when a limit is reached (default S3-FIFO, which beats
        /// LRU's hit ratio on skewed workloads; see ``EvictionPolicy``).
        public var memoryEvictionPolicy: EvictionPolicy
        /// The most bytes the disk tier takes on disk (default 256 MiB), its index included, plus
        /// a stated slack (see ``DiskCache/Configuration/sizeLimit``).
        public var diskSizeLimit: Int
        /// The longest a disk store waits for another process's write before it fails (default
        /// 2 s, at most 3600; see ``DiskCache/Configuration/writeLockTimeout``). Reads never wait.
        public var diskWriteLockTimeout: TimeInterval = 2
        /// The expiry of values stored without one (default ``Expiry/never``).
        public var defaultExpiry: Expiry
        /// What values' encodings are given (see ``Cachable/encode(with:)``): `HoardImage` adds the
        /// JPEG quality of opaque images here, as `jpegQuality`.
        public var encodingOptions = CachableEncodingOptions()
        /// Where damaged entries, trims and failures of completion-handler calls are reported.
        public var logger: Logger
        /// The clock for creation dates and expiry; tests inject their own.
        public var now: @Sendable () -> Date
        /// An age after which a value counts as expired when read, on top of its ``Expiry``
        /// (default ``ExpirationPolicy/never``). Calls that fetch can replace it for themselves.
        public var expirationPolicy: ExpirationPolicy
        /// Which values are stored at all (default ``InsertionPolicy/always``).
        public var insertionPolicy: InsertionPolicy
        /// Whether the cache is used at all (default `true`).
        ///
        /// When `false`, nothing is read or stored: every fetching call runs its fetch (without
        /// sharing it with concurrent calls), ``Hoard/store(_:forKey:expiry:)-(_,String,_)`` does nothing,
        /// ``Hoard/retrieve(_:forKey:)-(_,String)`` returns `nil` and ``CachePolicy/cacheOnly`` throws
        /// ``HoardError/notCached(key:)``. Run an app's tests both ways to check that the cache
        /// changes how often work runs, never what it returns.
        public var isCachingEnabled: Bool
        /// The byte tiers after memory, in read order (default `[.disk]`): the disk tier, and any
        /// ``CacheTier`` of your own such as a shared Redis tier. Reads try memory, then these; a
        /// hit is copied into the tiers before it; stores write through all of them. Leave the
        /// disk out for a cache that keeps no files (its folder operations then throw
        /// ``HoardError/tierNotConfigured(_:)``).
        public var tiers: [Tier] = [.disk]
        /// The custom tiers in ``tiers``; setting it keeps the disk (if listed) first and puts
        /// these after it.
        @available(*, deprecated, message: "list every byte tier in `tiers`: [.disk, .custom(tier)]")
        public var additionalTiers: [any CacheTier] {
            get { tiers.compactMap(\.custom) }
            set { tiers = tiers.filter { $0.custom == nil } + newValue.map(Tier.custom) }
        }
        /// Where the cache's metrics go (hits and misses per tier, stores, evictions, fetch
        /// durations; see *Monitoring* in the DocC article *Fetching through the cache*); `nil` (the default) means the factory the
        /// application bootstrapped with `MetricsSystem.bootstrap(_:)` before creating the cache,
        /// and with none bootstrapped nothing is recorded.
        public var metricsFactory: (any MetricsFactory)?
        /// How long, in seconds, another process's ``Hoard/expireAll()`` may go unnoticed here
        /// (default 1): reads re-read the cache folder's small mark file at most this often. This
        /// process's own `expireAll()` applies at once. 0 reads it on every lookup.
        public var expirationMarkRefreshInterval: TimeInterval
        /// How long, in seconds, a fetch may hold the lease of a ``SharedCacheTier`` (default 60):
        /// the longest other machines wait for its value before fetching themselves, and how long
        /// a lease outlives a worker that died holding it. Make it longer than a slow fetch takes.
        public var fetchLeaseDuration: TimeInterval

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - name: The cache's name (default `"default"`).
        ///   - directory: The disk folder, or `nil` for ``defaultDirectory(name:)``.
        public init(name: String = "default", directory: URL? = nil) {
            self.name = name
            self.directory = directory
            memoryCountLimit = 1_000
            memoryCostLimit = 64 * 1024 * 1024
            memoryEvictionPolicy = .s3fifo
            diskSizeLimit = 256 * 1024 * 1024
            defaultExpiry = .never
            logger = Logger(label: "Hoard.\(name)")
            now = { Date() }
            expirationPolicy = .never
            insertionPolicy = .always
            isCachingEnabled = true
            expirationMarkRefreshInterval = 1
            fetchLeaseDuration = 60
        }

        /// The folder the disk tier uses.
        public var resolvedDirectory: URL { directory ?? Self.defaultDirectory(name: name) }

        /// The default folder for a cache named `name`, following the XDG base directory spec:
        /// `$XDG_CACHE_HOME/hoard/<name>` when that variable holds an absolute path, else
        /// `~/.cache/hoard/<name>` (`~/Library/Caches/hoard/<name>` on Apple platforms).
        ///
        /// - Parameter name: The cache's name.
        /// - Returns: A file URL; the folder is created when the cache opens.
        public static func defaultDirectory(name: String) -> URL {
            defaultDirectory(
                name: name, environment: ProcessInfo.processInfo.environment,
                home: FileManager.default.homeDirectoryForCurrentUser)
        }

        static func defaultDirectory(name: String, environment: [String: String], home: URL) -> URL {
            let base: URL
            if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
                base = URL(fileURLWithPath: xdg, isDirectory: true)
            } else {
                let homePath = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                let homeURL = homePath.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? home
                #if canImport(Darwin)
                    base = homeURL.appendingPathComponent("Library/Caches", isDirectory: true)
                #else
                    base = homeURL.appendingPathComponent(".cache", isDirectory: true)
                #endif
            }
            return base.appendingPathComponent("hoard", isDirectory: true).appendingPathComponent(
                name, isDirectory: true)
        }

        /// Checks every field: the name, then each limit, quality, interval and expiry.
        ///
        /// - Throws: ``HoardError/invalidName(_:)`` or ``HoardError/invalidValue(_:)`` naming the field.
        func validate() throws(HoardError) {
            try Self.validate(name: name)
            do throws(InvalidValueError) {
                if let directory, !directory.isFileURL {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.directory", value: directory.absoluteString, requirement: "a file URL")
                }
                try InvalidValueError.check(memoryCountLimit, atLeast: 0, "Hoard.Configuration.memoryCountLimit")
                try InvalidValueError.check(memoryCostLimit, atLeast: 0, "Hoard.Configuration.memoryCostLimit")
                try InvalidValueError.check(diskSizeLimit, atLeast: 1, "Hoard.Configuration.diskSizeLimit")
                try InvalidValueError.check(
                    diskWriteLockTimeout, atLeast: 0, "Hoard.Configuration.diskWriteLockTimeout")
                guard diskWriteLockTimeout <= 3600 else {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.diskWriteLockTimeout", value: "\(diskWriteLockTimeout)",
                        requirement: "at most 3600 seconds")
                }
                try encodingOptions.validate()
                try InvalidValueError.check(
                    expirationMarkRefreshInterval, atLeast: 0, "Hoard.Configuration.expirationMarkRefreshInterval")
                guard expirationMarkRefreshInterval <= 86_400 else {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.expirationMarkRefreshInterval",
                        value: "\(expirationMarkRefreshInterval)", requirement: "at most 86400 seconds")
                }
                try InvalidValueError.check(fetchLeaseDuration, atLeast: 0.001, "Hoard.Configuration.fetchLeaseDuration")
                guard fetchLeaseDuration <= 86_400 else {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.fetchLeaseDuration", value: "\(fetchLeaseDuration)",
                        requirement: "at most 86400 seconds")
                }
                try defaultExpiry.validate("Hoard.Configuration.defaultExpiry")
                try expirationPolicy.validate("Hoard.Configuration.expirationPolicy")
                var seen: Set<CacheTierIdentifier> = [.memory, .fetch]
                for tier in tiers where !seen.insert(tier.identifier).inserted {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.tiers", value: "\(tier.identifier)",
                        requirement: "tiers with unique identifiers other than memory and fetch, the disk at most once")
                }
                if tiers.contains(where: { $0.custom?.identifier == .disk }) {
                    throw InvalidValueError(
                        field: "Hoard.Configuration.tiers", value: "disk",
                        requirement: "a custom tier named other than disk (the disk tier is .disk)")
                }
            } catch {
                throw .invalidValue(error)
            }
        }

        /// Refuses names that are empty, too long, or anything but a single plain path component.
        static func validate(name: String) throws(HoardError) {
            let allowed = name.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "-_.".unicodeScalars.contains($0)
            }
            guard !name.isEmpty, name.utf8.count <= 128, allowed, name != ".", name != ".." else {
                throw .invalidName(name)
            }
        }
    }
}
