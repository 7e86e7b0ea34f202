import ArgumentParser
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

    func validate() throws {
        guard Self.cacheLimitRange.contains(cacheLimit) else {
            throw ValidationError(
                "--cache-limit must be between 1 and \(Self.cacheLimitRange.upperBound) MiB, not \(cacheLimit)")
        }
    }

    /// The folder the cache lives in.
    var directory: URL {
        cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? Hoard.Configuration.defaultDirectory(name: "default")
    }

    /// Opens the cache: the disk, then `remote` when there is one; no memory tier (every value is
    /// read once per run, so memory would only cost).
    ///
    /// - Parameters:
    ///   - remote: The shared tier (see ``RemoteOptions/openTier(logger:)``), or `nil`.
    ///   - fetchLeaseDuration: How long a fetch may hold its lease on a key in `remote` (see
    ///     ``Hoard/Configuration/fetchLeaseDuration``), in seconds.
    ///   - logger: Where the cache logs.
    func openHoard(
        remote: (any CacheTier)? = nil, fetchLeaseDuration: Double? = nil, logger: Logger = ToolLogHandler.logger()
    ) throws -> Hoard {
        var configuration = Hoard.Configuration(name: "default", directory: directory)
        configuration.memoryCountLimit = 0
        configuration.memoryCostLimit = 0
        let (bytes, overflow) = cacheLimit.multipliedReportingOverflow(by: 1 << 20)
        guard !overflow else {
            throw ValidationError("--cache-limit \(cacheLimit) MiB is more bytes than fit in an Int")
        }
        configuration.diskSizeLimit = bytes
        configuration.logger = logger
        if let remote { configuration.tiers = [.disk, .custom(remote)] }
        if let fetchLeaseDuration { configuration.fetchLeaseDuration = fetchLeaseDuration }
        return try Hoard(configuration: configuration)
    }
}

extension CacheOptions {
    /// Runs `body` with the cache, and the shared tier `remote` configures after its disk; the
    /// tier is shut down afterwards, whatever `body` does.
    ///
    /// - Throws: What ``RemoteOptions/openTier(logger:)``, ``openHoard(remote:fetchLeaseDuration:logger:)``
    ///   and `body` throw.
    func withHoard<Result>(remote: RemoteOptions, _ body: (Hoard) async throws -> Result) async throws -> Result {
        let tier = try await remote.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis"))
        do {
            let result = try await body(openHoard(remote: tier))
            await tier?.shutdown()
            return result
        } catch {
            await tier?.shutdown()
            throw error
        }
    }
}
