import ArgumentParser
import CoreMetrics
import Foundation
import Hoard
import Logging

/// The cache options every subcommand shares.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache folder (default: Hoard.shared's, $XDG_CACHE_HOME/hoard/default or ~/.cache/hoard/default).",
            valueName: "DIR"))
    var cache: String?

    /// The `--cache-limit` values accepted: at least 1 MiB, and few enough that the limit in bytes
    /// (`cacheLimit << 20`) fits an `Int`.
    static let cacheLimitRange = 1...(Int.max >> 20)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most the cache may take on disk, in MiB, 1-\(Int.max >> 20).", valueName: "MIB"))
    var cacheLimit: Int = 1024

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How much of --cache-limit downloaded originals may take, in MiB, from 0 (none kept) to below --cache-limit; default half. They live in the folder's originals/ cache with a limit of their own, so they never crowd out thumbnails.",
            valueName: "MIB"))
    var originalsLimit: Int?

    /// How long a downloaded original is kept, in every tier (Redis included), unless a run
    /// needs it again and downloads it anew.
    static let originalsExpiry: Expiry = .seconds(Double(originalsExpiryDays) * 86_400)
    static let originalsExpiryDays = 7

    func validate() throws {
        guard Self.cacheLimitRange.contains(cacheLimit) else {
            throw ValidationError(
                "--cache-limit must be between 1 and \(Self.cacheLimitRange.upperBound) MiB, not \(cacheLimit)")
        }
        if let originalsLimit, !(0..<cacheLimit).contains(originalsLimit) {
            throw ValidationError(
                "--originals-limit must be between 0 and \(cacheLimit - 1) MiB (below --cache-limit), not \(originalsLimit)")
        }
    }

    /// The folder the cache lives in.
    var directory: URL {
        cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? Hoard.Configuration.defaultDirectory(name: "default")
    }

    /// Checks that the cache folder exists, for the commands that only read it: a mistyped
    /// `--cache` is said, not shown as an empty cache made on the spot.
    ///
    /// - Throws: ``RunFailure`` naming the folder when it is not there.
    func requireExistingFolder() throws {
        guard LocalFile.isDirectory(directory.path) else {
            throw RunFailure("no cache at \(directory.path): the folder does not exist")
        }
    }

    /// The originals' share of the limit, in MiB: 0 keeps none.
    var originalsMiB: Int { originalsLimit ?? cacheLimit / 2 }

    /// The originals' cache folder, inside the cache folder (the disk tier there ignores it).
    var originalsDirectory: URL { directory.appendingPathComponent("originals", isDirectory: true) }

    /// Opens the cache of thumbnails and records: the disk, then `remote` when there is one; no
    /// memory tier (every value is read once per run, so memory would only cost). Its limit is
    /// `--cache-limit` less the originals' share.
    ///
    /// - Parameters:
    ///   - remote: The shared tier (see ``RemoteOptions/openTier(logger:)``), or `nil`.
    ///   - fetchLeaseDuration: How long a fetch may hold its lease on a key in `remote` (see
    ///     ``Hoard/Configuration/fetchLeaseDuration``), in seconds.
    ///   - logger: Where the cache logs.
    ///   - memoryBytes: The memory tier's limit in bytes; 0 (the batch tool's) keeps none.
    ///   - metricsFactory: Where the cache reports its metrics; `nil` for swift-metrics' global one.
    func openHoard(
        remote: (any CacheTier)? = nil, fetchLeaseDuration: Double? = nil, memoryBytes: Int = 0,
        metricsFactory: (any MetricsFactory)? = nil, logger: Logger = ToolLogHandler.logger()
    ) throws -> Hoard {
        try Self.open(
            name: Self.cacheName(of: directory), directory: directory, mebibytes: cacheLimit - originalsMiB, remote: remote,
            fetchLeaseDuration: fetchLeaseDuration, memoryBytes: memoryBytes, metricsFactory: metricsFactory,
            logger: logger)
    }

    /// Opens the originals' cache (see ``openHoard(remote:fetchLeaseDuration:logger:)``), whose
    /// values expire after ``originalsExpiry``; `nil` when their share is 0, or when `creating`
    /// is false and the folder does not exist.
    func openOriginals(
        remote: (any CacheTier)? = nil, fetchLeaseDuration: Double? = nil, creating: Bool = true,
        logger: Logger = ToolLogHandler.logger()
    ) throws -> Hoard? {
        guard originalsMiB > 0, isOriginalsFolderOwn(logger: logger), creating || LocalFile.isDirectory(originalsDirectory.path)
        else { return nil }
        do {
            return try Self.open(
                name: "originals", directory: originalsDirectory, mebibytes: originalsMiB, remote: remote,
                fetchLeaseDuration: fetchLeaseDuration, expiry: Self.originalsExpiry, logger: logger)
        } catch let error as ValidationError {
            throw error
        } catch {
            // The originals are a saving, not a need: every input is still read from its source.
            logger.warning(
                "The originals' cache cannot be opened: originals are not cached this run",
                metadata: ["path": .string(originalsDirectory.path), "error": .string(String(describing: error))])
            return nil
        }
    }

    /// Whether the originals' folder, the cache's own sub-folder, is the cache's: missing, or a
    /// folder. A symbolic link there (dangling or not) is never followed: it is removed (the link
    /// only), so that the folder is made anew. Anything else (a file, a FIFO) is left alone and
    /// the originals are not cached this run. Either is logged.
    private func isOriginalsFolderOwn(logger: Logger) -> Bool {
        let path = originalsDirectory.path
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else {
            return true  // missing (or not readable: opening it says which)
        }
        switch type {
        case .typeDirectory:
            return true
        case .typeSymbolicLink:
            logger.warning("The originals' folder was a symbolic link: the link is removed, never followed", metadata: ["path": .string(path)])
            return (try? FileManager.default.removeItem(atPath: path)) != nil
        default:
            logger.warning("The originals' folder is not a folder: left alone, originals are not cached this run", metadata: ["path": .string(path)])
            return false
        }
    }

    /// The cache's name in logs and metrics: its folder's name (`hoard` for `/var/cache/hoard`),
    /// or `default` when that is not a name a configuration takes.
    static func cacheName(of directory: URL) -> String {
        let name = directory.standardizedFileURL.lastPathComponent
        let plain = name.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_.".unicodeScalars.contains($0)
        }
        return plain && !name.isEmpty && name.utf8.count <= 128 && name != "." && name != ".." ? name : "default"
    }

    private static func open(
        name: String, directory: URL, mebibytes: Int, remote: (any CacheTier)?, fetchLeaseDuration: Double?,
        expiry: Expiry = .never, memoryBytes: Int = 0, metricsFactory: (any MetricsFactory)? = nil, logger: Logger
    ) throws -> Hoard {
        var configuration = Hoard.Configuration(name: name, directory: directory)
        configuration.memoryCountLimit = memoryBytes > 0 ? 100_000 : 0
        configuration.memoryCostLimit = memoryBytes
        let (bytes, overflow) = mebibytes.multipliedReportingOverflow(by: 1 << 20)
        guard !overflow else {
            throw ValidationError("--cache-limit \(mebibytes) MiB is more bytes than fit in an Int")
        }
        configuration.diskSizeLimit = bytes
        configuration.defaultExpiry = expiry
        configuration.logger = logger
        if let metricsFactory { configuration.metricsFactory = metricsFactory }
        if let remote { configuration.tiers = [.disk, .custom(remote)] }
        if let fetchLeaseDuration { configuration.fetchLeaseDuration = fetchLeaseDuration }
        return try Hoard(configuration: configuration)
    }
}

extension CacheOptions {
    /// Runs `body` with the cache and the originals' cache (when its folder exists), with the
    /// shared tier `remote` configures after their disks; the tier is shut down afterwards,
    /// whatever `body` does.
    ///
    /// - Throws: What ``RemoteOptions/openTier(logger:)``, ``openHoard(remote:fetchLeaseDuration:logger:)``
    ///   and `body` throw.
    func withHoards<Result>(remote: RemoteOptions, _ body: (Hoard, Hoard?) async throws -> Result) async throws
        -> Result
    {
        let tier = try await remote.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis"))
        do {
            let result = try await body(openHoard(remote: tier), openOriginals(remote: tier, creating: false))
            await tier?.shutdown()
            return result
        } catch {
            await tier?.shutdown()
            throw error
        }
    }
}
