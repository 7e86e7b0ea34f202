import Foundation
import Hoard
import HoardSystem

/// What the fetches of one input did, recorded from inside them (they run in tasks of their own).
final class InputWork: Sendable {
    /// The counts of one input's work.
    struct Counts: Sendable {
        var bytesDownloaded = 0
        var sharedOriginals = 0
        /// Conditional requests sent for a cached original.
        var revalidations = 0
        /// Revalidations answered `304 Not Modified`.
        var notModified = 0
        /// Revalidations that brought bytes other than the cached original's.
        var changedOriginals = 0
    }

    private let state = Lock<(counts: Counts, thumbnail: Data?, warnings: [String])>((Counts(), nil, []))

    /// The counts so far.
    var counts: Counts { state.withLock { $0.counts } }

    /// The thumbnail made while its original was fetched, if it was.
    var thumbnail: Data? { state.withLock { $0.thumbnail } }

    func addDownloaded(_ byteCount: Int) { state.withLock { $0.counts.bytesDownloaded += byteCount } }

    func countSharedOriginal() { state.withLock { $0.counts.sharedOriginals += 1 } }

    func countRevalidation() { state.withLock { $0.counts.revalidations += 1 } }

    func countNotModified() { state.withLock { $0.counts.notModified += 1 } }

    func countChangedOriginal() { state.withLock { $0.counts.changedOriginals += 1 } }

    func keep(_ thumbnail: Data) { state.withLock { $0.thumbnail = thumbnail } }

    /// What decoding the original warned of.
    var warnings: [String] { state.withLock { $0.warnings } }

    func addWarnings(_ warnings: [String]) { state.withLock { $0.warnings += warnings } }

    /// Whether the original was cut short (``Image/truncationWarning``): then neither it nor its
    /// thumbnail is cached.
    var originalIsTruncated: Bool { warnings.contains(Image.truncationWarning) }
}
