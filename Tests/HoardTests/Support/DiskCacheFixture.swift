import Foundation
import HoardTestSupport
import Logging

@testable import HoardCore

/// A cache in its own temporary folder with a hand-moved clock and a log recorder.
///
/// By default every entry gets a file of its own (`inlineEntryLimit` 0), so that the suites that
/// damage, replace or inspect entry files reach them; `DiskIndexTests` covers records kept inside
/// the index.
struct DiskCacheFixture {
    let folder: TemporaryDirectory
    let clock: TestClock
    let log: LogRecorder
    let cache: DiskCache

    init(
        sizeLimit: Int = 64 * 1024 * 1024, recencyUpdateInterval: TimeInterval = 60,
        rescanInterval: TimeInterval = 60, inlineEntryLimit: Int = 0, function: String = #function
    ) throws {
        folder = try TemporaryDirectory(function: function)
        clock = TestClock()
        log = LogRecorder()
        cache = try DiskCache(
            directory: folder.cacheURL,
            configuration: DiskCache.Configuration(
                sizeLimit: sizeLimit, recencyUpdateInterval: recencyUpdateInterval, rescanInterval: rescanInterval,
                inlineEntryLimit: inlineEntryLimit, logger: log.logger(), now: clock.closure))
    }

    /// The configuration of ``cache``, for a second instance on the same folder.
    func configuration(
        sizeLimit: Int = 64 * 1024 * 1024, recencyUpdateInterval: TimeInterval = 60, rescanInterval: TimeInterval = 60,
        inlineEntryLimit: Int? = nil
    ) -> DiskCache.Configuration {
        DiskCache.Configuration(
            sizeLimit: sizeLimit, recencyUpdateInterval: recencyUpdateInterval, rescanInterval: rescanInterval,
            inlineEntryLimit: inlineEntryLimit ?? cache.configuration.inlineEntryLimit, logger: log.logger(),
            now: clock.closure)
    }

    /// The entry file of `key`.
    func entryPath(_ key: String) throws -> String {
        try cache.location(forKey: key).path
    }

    /// Files under the cache folder, relative paths, without the folder's marker files.
    var files: [String] { cacheFiles(under: folder.cacheURL) }

    /// Temporary files left in the cache's `tmp` folder.
    var temporaryFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: cache.temporaryDirectoryPath)) ?? []
    }

    func remove() { folder.remove() }
}
