import ArgumentParser
import Foundation
import Hoard

/// The cache options every subcommand shares.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache folder (default: Hoard.shared's, $XDG_CACHE_HOME/hoard/default or ~/.cache/hoard/default).",
            valueName: "DIR"))
    var cache: String?

    @Option(name: .long, help: ArgumentHelp("The most the cache may take on disk, in MiB.", valueName: "MIB"))
    var cacheLimit: Int = 1024

    func validate() throws {
        guard cacheLimit > 0 else { throw ValidationError("--cache-limit must be at least 1 MiB") }
    }

    /// The folder the cache lives in.
    var directory: URL {
        cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? Hoard.Configuration.defaultDirectory(name: "default")
    }

    /// Opens the cache: disk only (every value is read once per run, so memory would only cost).
    func openHoard() throws -> Hoard {
        var configuration = Hoard.Configuration(name: "default", directory: directory)
        configuration.memoryCountLimit = 0
        configuration.memoryCostLimit = 0
        configuration.diskSizeLimit = cacheLimit * 1024 * 1024
        return try Hoard(configuration: configuration)
    }
}
