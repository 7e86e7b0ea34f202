import Foundation
import Hoard
import HoardSystem

/// The downloaded originals in the cache, kept fresh as HTTP says (RFC 9111).
///
/// Each original is two entries: its bytes (``OriginalKeys/originalKey(identifier:)``), in
/// the originals' own cache (see ``CacheOptions/openOriginals(remote:fetchLeaseDuration:creating:logger:)``)
/// so that they never crowd out thumbnails, and a small ``OriginalRecord`` (``OriginalKeys/originalRecordKey(identifier:)``) with their
/// SHA-256 and the response's caching fields, so that a warm run learns freshness without reading
/// the original. Each thumbnail made from a URL has a third, smaller one: the SHA-256 of the
/// original it was made from (``OriginalKeys/thumbnailOriginKey(thumbnailKey:)``). A
/// thumbnail is served only while that is the current original's: when a revalidation brings
/// other bytes, every size's thumbnail is made again, once, when it is next asked for.
///
/// The first download goes through ``Hoard/encodedEntry(_:forKey:expiry:fetch:)``, once per URL
/// across machines sharing a tier; a revalidation is made by each machine that finds its
/// original stale.
///
/// ```swift
/// let check = try await originals.check(url, identifier: id, thumbnailKey: key.key, work: work)
/// if !check.thumbnailIsCurrent { try await hoard.remove(forKey: key.key) }
/// ```
package struct OriginalCache: Sendable {
    /// What an input's thumbnail may rely on once its original was checked.
    package struct Check: Sendable {
        /// The original's bytes and digest, when the check downloaded them.
        package var original: Original?
        /// Whether a thumbnail stored under the input's key was made from the current original.
        package var thumbnailIsCurrent: Bool
    }

    /// An original's bytes and their hex SHA-256.
    package struct Original: Sendable {
        package let bytes: Data
        package let digest: String
    }

    /// The thumbnails' cache, which holds the records.
    package let hoard: Hoard
    /// The originals' bytes (none are kept when it opens to `nil`).
    package let store: OriginalStore
    package let downloader: Downloader
    package let policy: RevalidationPolicy

    /// An originals' cache over `hoard` (the records), `store` (the bytes), `downloader` and `policy`.
    package init(hoard: Hoard, store: OriginalStore, downloader: Downloader, policy: RevalidationPolicy) {
        self.hoard = hoard
        self.store = store
        self.downloader = downloader
        self.policy = policy
    }

    /// Checks the cached original of `url` with its server when ``policy`` says so, and says
    /// whether the thumbnail under `thumbnailKey` may be served.
    ///
    /// Without a record, an original that was never downloaded needs no check; one that was but
    /// could not be kept (`no-store`), or whose record is gone, is downloaded again to learn
    /// whether its thumbnail still stands (except with ``RevalidationPolicy/never``), counted as
    /// a revalidation. With a record, a fresh original is used
    /// as it is; a stale one is revalidated: a 304 or the same bytes keep the thumbnail, other
    /// bytes replace the original and make the thumbnail stale. A revalidation that fails for a
    /// reason that may pass (no answer, a 5xx) uses the stale original, unless its response
    /// said `must-revalidate` or `no-cache`.
    ///
    /// - Throws: ``DownloadError``; ``HoardError`` when the cache cannot be written;
    ///   ``OriginalCacheError`` when the system's SHA-256 fails.
    package func check(_ url: URL, identifier: String, thumbnailKey: String, work: InputWork) async throws -> Check {
        let recordKey = OriginalKeys.originalRecordKey(identifier: identifier)
        let record = (try? await hoard.retrieve(OriginalRecord.self, forKey: recordKey))
            .flatMap { $0.version == OriginalRecord.currentVersion ? $0 : nil }
        let originKey = OriginalKeys.thumbnailOriginKey(thumbnailKey: thumbnailKey)
        // A thumbnail without a mark (stored by code) counts as made from the recorded original.
        let madeFrom = (try? await hoard.retrieve(String.self, forKey: originKey)) ?? record?.digest
        guard let record else {
            guard let madeFrom, policy != .never else { return Check(original: nil, thumbnailIsCurrent: true) }
            // A revalidation by a full download: there is no validator to send. Downloading,
            // hashing and storing run on Swift's pool even for a caller on an event loop (the server).
            return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                work.countRevalidation()
                let (bytes, freshness) = try await download(url, work: work)
                let original = try Self.original(bytes)
                if original.digest != madeFrom { work.countChangedOriginal() }
                try await keep(original, freshness: freshness, identifier: identifier, storingBytes: true)
                return Check(original: original, thumbnailIsCurrent: original.digest == madeFrom)
            }
        }
        guard policy.shouldRevalidate(record, at: Date()) else {
            return Check(original: nil, thumbnailIsCurrent: madeFrom == record.digest)
        }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            let original = try await revalidate(url, record: record, identifier: identifier, work: work)
            return Check(original: original, thumbnailIsCurrent: madeFrom == (original?.digest ?? record.digest))
        }
    }

    /// Whether the thumbnail under `thumbnailKey` is current, known without suspending: the
    /// original's record and the thumbnail's mark are in the cache's memory tier, the record needs
    /// no revalidation under ``policy``, and the mark names the recorded original. `false` says
    /// only that ``check(_:identifier:thumbnailKey:work:)`` must decide.
    package func isCurrentInMemory(identifier: String, thumbnailKey: String) -> Bool {
        guard
            let record = hoard.memoryValue(
                OriginalRecord.self, forKey: OriginalKeys.originalRecordKey(identifier: identifier)),
            record.version == OriginalRecord.currentVersion, !policy.shouldRevalidate(record, at: Date()),
            let madeFrom = hoard.memoryValue(String.self, forKey: OriginalKeys.thumbnailOriginKey(thumbnailKey: thumbnailKey))
        else { return false }
        return madeFrom == record.digest
    }

    /// The original of `url`, from the cache or downloaded once per URL across machines; a
    /// download's thumbnail is made by `makeThumbnail` before the original is stored, so that only
    /// a decodable original is kept, and kept in `work`.
    ///
    /// - Returns: The original and where it came from.
    /// - Throws: ``DownloadError``, ``HoardError``, what `makeThumbnail` throws.
    package func original(
        _ url: URL, identifier: String, work: InputWork,
        makeThumbnail: @escaping @Sendable (Data) async throws -> Data
    ) async throws -> Original {
        guard let originals = try store.hoard() else {
            // Not kept: downloaded for this input alone (its thumbnail is still made once).
            let (original, freshness) = try await downloadMakingThumbnail(url, work: work, makeThumbnail: makeThumbnail)
            if !work.originalIsTruncated {
                try await keep(original, freshness: freshness, identifier: identifier, storingBytes: false)
            }
            return original
        }
        let entry: CacheEntry<Data>
        do {
            entry = try await originals.encodedEntry(
                Data.self, forKey: OriginalKeys.originalKey(identifier: identifier)
            ) { [self] in
                let (original, freshness) = try await downloadMakingThumbnail(
                    url, work: work, makeThumbnail: makeThumbnail)
                // Not kept: thrown past encodedEntry, which stores only what its fetch returns. A
                // damaged original is not kept either, nor recorded: the next run asks again.
                if work.originalIsTruncated { throw NotStoredOriginal(original: original) }
                guard freshness.isStorable else { throw NotStoredOriginal(original: original) }
                try await keep(original, freshness: freshness, identifier: identifier, storingBytes: false)
                return original.bytes
            }
        } catch let notStored as NotStoredOriginal {
            return notStored.original
        }
        if let storeError = entry.storeError { throw OriginalCacheError.storeFailed("\(storeError)") }
        if entry.source != .fetch && entry.source != .disk && entry.source != .memory { work.countSharedOriginal() }
        return try Self.original(entry.value)
    }

    /// Records that the thumbnail under `thumbnailKey` was made from `original`.
    ///
    /// - Throws: ``HoardError`` when the cache cannot be written.
    package func recordThumbnail(_ thumbnailKey: String, madeFrom original: Original) async throws {
        try await hoard.store(original.digest, forKey: OriginalKeys.thumbnailOriginKey(thumbnailKey: thumbnailKey))
    }

    // MARK: - Private

    /// A full download of `url` (a 304 to an unconditional request is an error), counted in `work`.
    private func download(_ url: URL, work: InputWork) async throws -> (bytes: Data, freshness: HTTPFreshness) {
        let response = try await downloader.download(url)
        guard case .data(let bytes) = response.body else { throw DownloadError.httpStatus(304, "Not Modified") }
        work.addDownloaded(bytes.count)
        return (bytes, response.freshness)
    }

    /// ``download(_:work:)``, then the thumbnail made from it (kept in `work`, so that only a
    /// decodable original is ever stored), then the original's digest.
    private func downloadMakingThumbnail(
        _ url: URL, work: InputWork, makeThumbnail: @Sendable (Data) async throws -> Data
    ) async throws -> (original: Original, freshness: HTTPFreshness) {
        let (bytes, freshness) = try await download(url, work: work)
        work.keep(try await makeThumbnail(bytes))
        return (try Self.original(bytes), freshness)
    }

    /// A no-store original, carried out of the fetch that must not store it.
    private struct NotStoredOriginal: Error {
        package let original: Original
    }

    /// Revalidates a stale original: a conditional request with its validators.
    ///
    /// - Returns: The new bytes and their digest after a 200 (the same bytes or others), or
    ///   `nil` when the cached original stands (a 304, or a failure that allows stale use).
    private func revalidate(_ url: URL, record: OriginalRecord, identifier: String, work: InputWork) async throws
        -> Original?
    {
        work.countRevalidation()
        let response: DownloadResponse
        do {
            response = try await downloader.download(url, conditions: RequestConditions(record.freshness))
        } catch {
            guard error.mayPass, !record.freshness.forbidsStaleUse else { throw error }
            return nil
        }
        switch response.body {
        case .notModified:
            work.countNotModified()
            var updated = record
            updated.freshness = record.freshness.updated(byNotModified: response.freshness)
            if updated.freshness.isStorable {
                try await hoard.store(updated, forKey: OriginalKeys.originalRecordKey(identifier: identifier))
            } else {
                try await forget(identifier: identifier)
            }
            return nil
        case .data(let bytes):
            work.addDownloaded(bytes.count)
            let original = try Self.original(bytes)
            let changed = original.digest != record.digest
            if changed { work.countChangedOriginal() }
            try await keep(original, freshness: response.freshness, identifier: identifier, storingBytes: changed)
            return original
        }
    }

    /// Stores the record of a downloaded original, and its bytes when `storingBytes`; or, for a
    /// `no-store` response, removes both.
    private func keep(_ original: Original, freshness: HTTPFreshness, identifier: String, storingBytes: Bool)
        async throws
    {
        guard freshness.isStorable else { return try await forget(identifier: identifier) }
        if storingBytes, let originals = try store.hoard() {
            try await originals.storeEncoded(
                original.bytes, as: Data.self, forKey: OriginalKeys.originalKey(identifier: identifier))
        }
        let record = OriginalRecord(digest: original.digest, byteCount: original.bytes.count, freshness: freshness)
        try await hoard.store(record, forKey: OriginalKeys.originalRecordKey(identifier: identifier))
    }

    /// Removes an original and its record.
    private func forget(identifier: String) async throws {
        try await store.hoard()?.remove(forKey: OriginalKeys.originalKey(identifier: identifier))
        try await hoard.remove(forKey: OriginalKeys.originalRecordKey(identifier: identifier))
    }

    /// `bytes` with their digest.
    ///
    /// - Throws: ``OriginalCacheError`` when the system's SHA-256 fails.
    private static func original(_ bytes: Data) throws -> Original {
        guard let digest = SHA256.hexDigest(Array(bytes)) else {
            throw OriginalCacheError.digestFailed
        }
        return Original(bytes: bytes, digest: digest)
    }
}

extension DownloadError {
    /// Whether a failed revalidation may pass on its own (no answer, a time limit, a 5xx), so
    /// that a stale original may be used meanwhile (RFC 9111 §4.2.4).
    fileprivate var mayPass: Bool {
        switch self {
        case .timedOut, .connectionRefused, .failed: return true
        case .httpStatus(let code, _): return (500..<600).contains(code)
        case .tooLarge, .redirectLoop, .tooManyRedirects, .refused: return false
        }
    }
}
