import Foundation
import Hoard
import HoardOriginals
import HoardSystem
import NIOPosix

/// How a request's variant is found or made: its path resolved to a ``Variant``, then the bytes
/// from the cache, or made once from the original (a local file, or the originals' cache with its
/// freshness checks), with the queue's places and the decode threads.
extension ImageServer {
    /// How a variant is made on a miss.
    typealias Producer = @Sendable () async throws -> CacheEntry<Data>

    /// A path parsed, its source checked, and its variant for a client that does or does not take
    /// WebP, with whether the answer varies by `Accept` and how it is made on a miss: from a local
    /// file's bytes, or through the originals' cache (then remembered in ``recentVariants``).
    func resolve(_ path: String, acceptsWebP: Bool) throws -> (Variant, Bool, Producer) {
        let request = try ImagePath(
            parsing: path, presets: configuration.presets, presetsOnly: configuration.presetsOnly)
        try configuration.sources.prefix(for: request.source)
        let format: ThumbnailKey.Format =
            switch request.options.format {
            case .auto: acceptsWebP ? .webp : .auto
            case .jpeg: .jpeg
            case .png: .png
            case .webp: .webp
            }
        let variesByAccept = request.options.format == .auto
        switch request.source {
        case .local(let components):
            guard let local else { throw ServeError.sourceRefused("local files are not served (no --root)") }
            let found = try local.find(components)
            let variant = try Variant(
                options: request.options, format: format, sourceName: ThumbnailKey.sourceName(ofFile: found.path),
                fingerprint: found.fingerprint)
            // `load` runs in the cache's single-flight task, on Swift's pool, not on an event loop.
            return (variant, variesByAccept, { [self] in try await cached(variant) { try local.read(found) } })
        case .remote(let url):
            let variant = try Variant(
                options: request.options, format: format, sourceName: Self.sourceName(of: url), fingerprint: nil)
            recentVariants.remember(
                .init(variant: variant, url: url, variesByAccept: variesByAccept), path: path, acceptsWebP: acceptsWebP)
            return (variant, variesByAccept, origin(of: variant, url: url))
        }
    }

    /// Makes a remote source's variant on a miss (``cachedFromOrigin(_:url:)``).
    func origin(of variant: Variant, url: URL) -> Producer {
        { [self] in try await cachedFromOrigin(variant, url: url) }
    }

    /// The variant's entry (its bytes and when they were stored) from the cache, or made from the
    /// local original `load` reads (one decode per key at a time, in the queue). The original is
    /// read once a decode place is free: a local file never waits behind a remote origin.
    private func cached(_ variant: Variant, load: @escaping @Sendable () async throws -> Data) async throws
        -> CacheEntry<Data>
    {
        let entry = try await hoard.encodedEntry(Image.self, forKey: variant.cacheKey) { [self] in
            try await decode(variant) {
                let started = ContinuousClock.now
                defer { metrics?.record(.origin, ContinuousClock.now - started) }
                return try await load()
            }
        }
        if let storeError = entry.storeError {
            logger.warning("cannot cache a variant", metadata: ["key": .string(variant.cacheKey), "error": "\(storeError)"])
        }
        return entry
    }

    /// Makes `variant` from an original: a place in the decode queue, then the work on the
    /// server's decode threads (the cooperative pool stays free for requests that need no decode).
    private func renderer(_ variant: Variant) -> @Sendable (Data) async throws -> Data {
        { [self] original in try await decode(variant, from: { original }) }
    }

    /// Makes `variant` from the original `load` gives, once a place in the decode queue is free.
    private func decode(_ variant: Variant, from load: @Sendable () async throws -> Data) async throws -> Data {
        let queued = ContinuousClock.now
        return try await queue.runOrRefuse {
            metrics?.record(.queue, ContinuousClock.now - queued)
            let original = try await load()
            let maximumPixels = configuration.maximumPixels
            return try await decodeThreads.runIfActive { [metrics] in
                try variant.make(from: original, maximumPixels: maximumPixels) { metrics?.record($0, $1) }
            }
        }
    }

    /// A remote source's variant: its original checked with the origin when stale (as `hoard
    /// thumbnails` does: a 304 keeps the variant, other bytes make it again), then from the cache
    /// or made from the original, which is downloaded once per URL and kept. Returns the variant's
    /// entry: its bytes and when they were stored.
    private func cachedFromOrigin(_ variant: Variant, url: URL) async throws -> CacheEntry<Data> {
        let identifier = variant.thumbnailKey.source
        let work = InputWork()
        let started = ContinuousClock.now
        let check: OriginalCache.Check
        do {
            // A stale original's revalidation may download it: that takes a place of its origin.
            check = try await originPlaces.run(for: url) {
                try await originalCache.check(url, identifier: identifier, thumbnailKey: variant.cacheKey, work: work)
            }
        } catch {
            throw Self.serveError(error)
        }
        if !check.thumbnailIsCurrent {
            // A write, which may wait for another process's: off the event loops.
            try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await hoard.remove(forKey: variant.cacheKey)
            }
        }
        metrics?.record(.origin, ContinuousClock.now - started)
        let make = renderer(variant)
        let entry = try await hoard.encodedEntry(Image.self, forKey: variant.cacheKey) {
            [originPlaces, metrics, originalCache] in
            do {
                // Runs in the cache's single-flight task, on Swift's pool: reading, hashing and
                // storing an original never hold up an event loop. The download holds a place of
                // its origin, never a decode place: only the decode itself waits for one.
                return try await originPlaces.run(for: url) {
                    let used: OriginalCache.Original
                    if let downloaded = check.original {
                        used = downloaded
                    } else {
                        let fetching = ContinuousClock.now
                        used = try await originalCache.original(
                            url, identifier: identifier, work: work, makeThumbnail: make)
                        metrics?.record(.origin, ContinuousClock.now - fetching)
                    }
                    let made = if let thumbnail = work.thumbnail { thumbnail } else { try await make(used.bytes) }
                    try await originalCache.recordThumbnail(variant.cacheKey, madeFrom: used)
                    return made
                }
            } catch {
                throw Self.serveError(error)
            }
        }
        return entry
    }

    /// The status an error of the originals' cache or the download answers with.
    static func serveError(_ error: any Error) -> ServeError {
        switch error {
        case let error as ServeError: return error
        case let error as DownloadError:
            switch error {
            case .httpStatus(let code, _) where code == 404 || code == 410:
                return .sourceMissing("the origin answered \(code)")
            case .httpStatus(let code, _): return .originFailed("the origin answered \(code)")
            case .tooLarge(let limit): return .sourceTooLarge("the source is larger than \(limit) bytes")
            case .timedOut: return .originTimedOut("\(error)")
            case .refused(let reason): return .sourceRefused(reason)
            case .redirectLoop, .tooManyRedirects, .connectionRefused, .failed: return .originFailed("\(error)")
            }
        case is CancellationError: return .originTimedOut("the request was cancelled")
        default: return .internalError("\(error)")
        }
    }

    /// The tool's source name for a URL (its key's source).
    private static func sourceName(of url: URL) throws(ServeError) -> String {
        do {
            return try ThumbnailKey(url: url, size: 1).source
        } catch {
            throw .badOptions("\(error)")
        }
    }
}
