import Foundation
import Logging

@testable import Hoard

/// A cache in its own temporary folder with a hand-moved clock and a log recorder.
struct DiskCacheFixture {
    let folder: TemporaryDirectory
    let clock: TestClock
    let log: LogRecorder
    let cache: DiskCache

    init(
        sizeLimit: Int = 64 * 1024 * 1024, recencyUpdateInterval: TimeInterval = 60,
        rescanInterval: TimeInterval = 60, function: String = #function
    ) throws {
        folder = try TemporaryDirectory(function: function)
        clock = TestClock()
        log = LogRecorder()
        cache = try DiskCache(
            directory: folder.cacheURL,
            configuration: DiskCache.Configuration(
                sizeLimit: sizeLimit, recencyUpdateInterval: recencyUpdateInterval, rescanInterval: rescanInterval,
                logger: log.logger(), now: clock.closure))
    }

    /// The configuration of ``cache``, for a second instance on the same folder.
    func configuration(
        sizeLimit: Int = 64 * 1024 * 1024, recencyUpdateInterval: TimeInterval = 60, rescanInterval: TimeInterval = 60
    ) -> DiskCache.Configuration {
        DiskCache.Configuration(
            sizeLimit: sizeLimit, recencyUpdateInterval: recencyUpdateInterval, rescanInterval: rescanInterval,
            logger: log.logger(), now: clock.closure)
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
