import Foundation
import Hoard
import HoardSystem

/// What the fetches of one input did, recorded from inside them (they run in tasks of their own).
package final class InputWork: Sendable {
    /// The counts of one input's work.
    package struct Counts: Sendable {
        package var bytesDownloaded = 0
        package var sharedOriginals = 0
        /// Conditional requests sent for a cached original.
        package var revalidations = 0
        /// Revalidations answered `304 Not Modified`.
        package var notModified = 0
        /// Revalidations that brought bytes other than the cached original's.
        package var changedOriginals = 0
    }

    private let state = Lock<(counts: Counts, thumbnail: Data?, warnings: [String])>((Counts(), nil, []))

    /// The counts so far.
    /// A record of nothing done yet.
    package init() {}

    package var counts: Counts { state.withLock { $0.counts } }

    /// The thumbnail made while its original was fetched, if it was.
    package var thumbnail: Data? { state.withLock { $0.thumbnail } }

    package func addDownloaded(_ byteCount: Int) { state.withLock { $0.counts.bytesDownloaded += byteCount } }

    package func countSharedOriginal() { state.withLock { $0.counts.sharedOriginals += 1 } }

    package func countRevalidation() { state.withLock { $0.counts.revalidations += 1 } }

    package func countNotModified() { state.withLock { $0.counts.notModified += 1 } }

    package func countChangedOriginal() { state.withLock { $0.counts.changedOriginals += 1 } }

    package func keep(_ thumbnail: Data) { state.withLock { $0.thumbnail = thumbnail } }

    /// What decoding the original warned of.
    package var warnings: [String] { state.withLock { $0.warnings } }

    package func addWarnings(_ warnings: [String]) { state.withLock { $0.warnings += warnings } }

    /// Whether the original was cut short (``Image/truncationWarning``): then neither it nor its
    /// thumbnail is cached.
    package var originalIsTruncated: Bool { warnings.contains(Image.truncationWarning) }
}
