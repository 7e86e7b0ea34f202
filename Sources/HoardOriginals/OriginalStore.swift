import Foundation
import Hoard
import HoardSystem

/// The originals' cache of a run, opened when the first original is needed: a warm run, whose
/// thumbnails are all cached, never opens it.
package final class OriginalStore: Sendable {
    private let open: @Sendable () throws -> Hoard?
    private let state = Lock<Result<Hoard?, any Error>?>(nil)

    /// - Parameter open: Opens the cache, or returns `nil` when originals are not kept.
    package init(open: @escaping @Sendable () throws -> Hoard?) {
        self.open = open
    }

    /// The cache, or `nil` when originals are not kept.
    ///
    /// - Throws: What opening it threw (every later call throws it again).
    package func hoard() throws -> Hoard? {
        try state.withLock { state in
            if let state { return try state.get() }
            let opened = Result { try open() }
            state = opened
            return try opened.get()
        }
    }

    /// The cache if it has been opened.
    package var opened: Hoard? {
        state.withLock { state in (try? state?.get()) ?? nil }
    }
}
