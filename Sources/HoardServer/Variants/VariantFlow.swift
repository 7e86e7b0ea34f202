import AsyncHTTPClient
import Foundation
import Hoard
import HoardOriginals
import HoardSystem
import Logging
import NIOPosix

/// How a request's variant is found or made: its path resolved to a ``Variant`` (remembered for
/// remote sources in ``RecentVariants``), then its bytes from the cache, or made once from the
/// original (a local file, or the originals' cache with its freshness checks).
///
/// Invariant: a variant is made at most once per cache key at a time (in this process, and with a
/// shared tier across machines), with at most ``ServerConfiguration/decodeConcurrency`` decodes
/// running and ``ServerConfiguration/queueCapacity`` waiting (503 beyond), AVIF variants in places
/// of their own (``ServerConfiguration/avifConcurrency``) so that slow encodes never hold up
/// others; loading an original holds a place of its own origin (``OriginPlaces``), never a decode place.
final class VariantFlow: Sendable {
    /// How a variant is made on a miss.
    typealias Producer = @Sendable () async throws -> CacheEntry<Data>

    /// What a path resolved to.
    struct Resolved: Sendable {
        let variant: Variant
        /// Whether the path asked for `f:auto` (the answer then varies by `Accept`).
        let variesByAccept: Bool
        /// Makes the variant on a miss, or reads it from the cache's tiers.
        let make: Producer
    }

    private let hoard: Hoard
    private let configuration: ServerConfiguration
    /// Places for decodes: at most ``ServerConfiguration/decodeConcurrency`` at once.
    let decodeQueue: WorkQueue
    /// Places for variants encoded as AVIF, whose encodes take several times a JPEG's.
    let avifQueue: WorkQueue
    /// Places for downloading and revalidating originals, per origin: a silent origin holds only
    /// its own, and memory stays bounded by the allow-list's origins times their places; 503 beyond.
    private let originPlaces: OriginPlaces
    /// The threads decodes run on: the server's own, so that a decode never waits behind, or holds
    /// up, the cooperative pool or NIO's shared blocking-work threads (DNS lookups run there).
    private let decodeThreads: NIOThreadPool
    private let avifThreads: NIOThreadPool
    private let local: LocalSourceReader?
    private let downloader: Downloader
    private let originalCache: OriginalCache
    /// What recent paths of remote sources resolved to: a repeated request skips parsing.
    let recentVariants = RecentVariants(byteLimit: 4 << 20)
    private let metrics: ServerMetrics?
    private let logger: Logger

    /// The flow for `configuration`, storing variants in `hoard` and downloaded originals in
    /// `originals` (`nil`: none kept).
    init(hoard: Hoard, originals: Hoard?, configuration: ServerConfiguration, metrics: ServerMetrics?, logger: Logger) {
        self.hoard = hoard
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        decodeQueue = WorkQueue(concurrency: configuration.decodeConcurrency, waitingCapacity: configuration.queueCapacity)
        originPlaces = OriginPlaces(concurrency: configuration.originConcurrency, capacity: configuration.queueCapacity)
        decodeThreads = NIOThreadPool(numberOfThreads: configuration.decodeConcurrency)
        decodeThreads.start()
        avifQueue = WorkQueue(concurrency: configuration.avifConcurrency, waitingCapacity: configuration.queueCapacity)
        avifThreads = NIOThreadPool(numberOfThreads: configuration.avifConcurrency)
        avifThreads.start()
        local = configuration.sources.localRoot.map {
            LocalSourceReader(root: $0, maximumBytes: configuration.maximumSourceBytes)
        }
        let policy = configuration.sources
        let resolve = configuration.resolveHost
        downloader = Downloader(
            timeout: Double(configuration.requestTimeout.milliseconds) / 1000,
            maximumBytes: configuration.maximumSourceBytes, maximumRedirects: configuration.maximumRedirects,
            check: { url throws(DownloadError) in try await policy.admit(url, resolve: resolve) })
        originalCache = OriginalCache(
            hoard: hoard, store: OriginalStore { originals }, downloader: downloader, policy: .stale)
    }

    /// Stops the HTTP client and the decode threads.
    func shutdown() async throws {
        try await downloader.shutdown()
        try await decodeThreads.shutdownGracefully()
        try await avifThreads.shutdownGracefully()
    }

    /// What `path` resolved to for a client that takes `accepting`, when a recent request
    /// for a remote source named it: no parsing, no allow-list check.
    func recent(path: String, accepting: FormatNegotiation) -> Resolved? {
        guard let recent = recentVariants.entry(path: path, accepting: accepting),
            !Self.hasExpired(recent.variant.options)
        else { return nil }
        return Resolved(
            variant: recent.variant, variesByAccept: recent.variesByAccept, make: origin(of: recent.variant, url: recent.url))
    }

    /// The variant's bytes when they can be read without suspending: in the cache's disk tier, its
    /// original current in the cache's memory (no revalidation due). `nil` otherwise.
    func cachedEntry(of variant: Variant) -> CacheEntry<Data>? {
        guard originalCache.isCurrentInMemory(identifier: variant.thumbnailKey.source, thumbnailKey: variant.cacheKey)
        else { return nil }
        return hoard.firstDiskEncodedEntry(variant.storedType, forKey: variant.cacheKey)
    }

    /// A path parsed, its source checked, and its variant for a client that takes `accepting`,
    /// with whether the answer varies by `Accept` and how it is made on a miss: from a local
    /// file's bytes, or through the originals' cache (then remembered in ``recentVariants``). A
    /// path a recent request named is not parsed again.
    func resolve(_ path: String, accepting: FormatNegotiation) throws -> Resolved {
        if let recent = recent(path: path, accepting: accepting) { return recent }
        let request = try ImagePath(
            parsing: path, presets: configuration.presets, presetsOnly: configuration.presetsOnly,
            style: configuration.urlStyle)
        if Self.hasExpired(request.options) {
            throw ServeError.expired("the URL expired at \(request.options.expires ?? 0) (Unix time)")
        }
        try configuration.sources.prefix(for: request.source)
        let format: ThumbnailKey.Format =
            switch request.options.format {
            case .auto: accepting.acceptsAVIF ? .avif : accepting.acceptsWebP ? .webp : .auto
            case .jpeg: .jpeg
            case .png: .png
            case .webp: .webp
            case .avif: .avif
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
            return Resolved(
                variant: variant, variesByAccept: variesByAccept,
                make: { [self] in try await cached(variant) { try local.read(found) } })
        case .remote(let url):
            let variant = try Variant(
                options: request.options, format: format, sourceName: Self.sourceName(of: url), fingerprint: nil)
            recentVariants.remember(
                .init(variant: variant, url: url, variesByAccept: variesByAccept), path: path, accepting: accepting)
            return Resolved(variant: variant, variesByAccept: variesByAccept, make: origin(of: variant, url: url))
        }
    }

    /// The `/info` of the source a path names (the path after `/info`, its signature checked):
    /// `/<signature>/<source>`, no options, its source checked as an image's is.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for options or a malformed source, and what a source check throws.
    func resolveInfo(_ path: String) throws -> Resolved {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.count > 2, segments[2].contains(":"), segments[2] != "plain" {
            throw ServeError.badOptions("/info takes no options")
        }
        let request = try ImagePath(parsing: path, style: configuration.urlStyle)
        try configuration.sources.prefix(for: request.source)
        switch request.source {
        case .local(let components):
            guard let local else { throw ServeError.sourceRefused("local files are not served (no --root)") }
            let found = try local.find(components)
            let variant = try Variant(
                infoOf: ThumbnailKey.sourceName(ofFile: found.path), fingerprint: found.fingerprint)
            return Resolved(
                variant: variant, variesByAccept: false, make: { [self] in try await cached(variant) { try local.read(found) } })
        case .remote(let url):
            let variant = try Variant(infoOf: Self.sourceName(of: url), fingerprint: nil)
            return Resolved(variant: variant, variesByAccept: false, make: origin(of: variant, url: url))
        }
    }

    /// Whether the options' `expires` time has passed.
    static func hasExpired(_ options: ProcessingOptions) -> Bool {
        guard let expires = options.expires else { return false }
        return Double(expires) <= Date().timeIntervalSince1970
    }

    // MARK: - Private

    /// Makes a remote source's variant on a miss (``cachedFromOrigin(_:url:)``).
    private func origin(of variant: Variant, url: URL) -> Producer {
        { [self] in try await cachedFromOrigin(variant, url: url) }
    }

    /// The variant's entry (its bytes and when they were stored) from the cache, or made from the
    /// local original `load` reads (one decode per key at a time, in the queue). The original is
    /// read once a decode place is free: a local file never waits behind a remote origin.
    private func cached(_ variant: Variant, load: @escaping @Sendable () async throws -> Data) async throws
        -> CacheEntry<Data>
    {
        let entry = try await hoard.encodedEntry(variant.storedType, forKey: variant.cacheKey) { [self] in
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

    /// Makes `variant` from the original `load` gives, once a place in the decode queue (or, for
    /// AVIF, the AVIF queue) is free.
    private func decode(_ variant: Variant, from load: @Sendable () async throws -> Data) async throws -> Data {
        let queued = ContinuousClock.now
        let isAVIF = variant.thumbnailKey.format == .avif
        return try await (isAVIF ? avifQueue : decodeQueue).runOrRefuse {
            metrics?.record(.queue, ContinuousClock.now - queued)
            let original = try await load()
            let maximumPixels = configuration.maximumPixels
            return try await (isAVIF ? avifThreads : decodeThreads).runIfActive { [metrics] in
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
        let entry = try await hoard.encodedEntry(variant.storedType, forKey: variant.cacheKey) {
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
