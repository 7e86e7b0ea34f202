import Foundation
import Hoard

extension DiskCache.Configuration {
    /// This configuration with stores that wait up to 60 s for the index's write lock.
    ///
    /// For tests and children whose writers share the lock with busy trimmers or many processes:
    /// under a sanitizer on a loaded machine a store waited past the default 2 s. They check
    /// values and bounds, not that wait (`DiskCacheStalledWriterTests` does).
    public func waitingLongForTheWriteLock() -> Self {
        var configuration = self
        configuration.writeLockTimeout = 60
        return configuration
    }
}
