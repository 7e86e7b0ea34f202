import Foundation
import HTTPTypes
import Hoard
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The image server as routes a Hummingbird application mounts: `GET <prefix>/health`,
/// `GET <prefix>/ready`, `GET <prefix>/metrics` (with a registry),
/// `GET <prefix>/<signature>/<options>/<source>` (see ``ImagePath``; imgproxy's URLs too) and
/// `GET <prefix>/info/<signature>/<source>` (the source's size, format, profile and ThumbHash as JSON).
///
/// A request is parsed, its signature checked, its source checked against the ``SourcePolicy``,
/// then answered from the cache or made once: the original read or downloaded, decoded (at most
/// ``ServerConfiguration/decodeConcurrency`` at once, ``ServerConfiguration/queueCapacity``
/// waiting, 503 beyond; AVIF in places of its own), resized and encoded, stored under the same keys
/// `hoard thumbnails` uses.
/// One variant is made once per key in this process, and with a shared tier across machines.
///
/// ```swift
/// let server = try ImageServer(hoard: hoard, configuration: configuration)
/// let router = Router()
/// server.addRoutes(to: router)
/// try await Application(router: router).runService()
/// ```
///
/// This type is a façade over parts, each with its own invariant: the routes (`Routing/`: HEAD,
/// conditional requests, a middleware that times, counts and logs each image request, errors as
/// `HTTPResponseError`), the request model (`Requests/`: ``ImagePath``, ``ProcessingOptions``), the
/// signature (`Signing/`), the ``SourcePolicy``, the variant flow (`Variants/`: found, or made
/// once within the decode and origin places) and the memo of recent answers (`Answers/`).
public final class ImageServer: Sendable {
    let hoard: Hoard
    let configuration: ServerConfiguration
    /// Finds or makes each request's variant.
    let flow: VariantFlow
    /// Recent answers' bytes and heads.
    let answers: RecentAnswers
    /// Counts, times and logs answered requests.
    let requestLog: RequestLog
    let logger: Logger

    /// A server answering from `hoard` with `configuration`.
    ///
    /// - Parameters:
    ///   - hoard: The cache of variants, and of the records of downloaded originals.
    ///   - originals: The cache of downloaded originals' bytes (as `hoard thumbnails` keeps them in
    ///     `<cache>/originals`); `nil` keeps none, so each new variant downloads its source.
    ///   - configuration: What the server accepts and spends.
    ///   - logger: Where the server logs.
    /// - Throws: ``ServeError/badOptions(_:)`` when the configuration does not validate.
    public init(
        hoard: Hoard, originals: Hoard? = nil, configuration: ServerConfiguration,
        logger: Logger = Logger(label: "Hoard.serve")
    ) throws(ServeError) {
        try configuration.validate()
        self.hoard = hoard
        self.configuration = configuration
        self.logger = logger
        let metrics = configuration.metricsRegistry.map(ServerMetrics.init(registry:))
        answers = RecentAnswers(
            byteLimit: configuration.memoryBytes, cacheControl: "public, max-age=\(configuration.cacheMaxAge)")
        let flow = VariantFlow(
            hoard: hoard, originals: originals, configuration: configuration, metrics: metrics, logger: logger)
        self.flow = flow
        requestLog = RequestLog(metrics: metrics, logger: logger) { flow.decodeQueue.counts.waiting }
    }

    /// An HTTP/1.1 server for the application that mounts this server's routes: its connections
    /// kept to `limits`, and an image request whose answer is cached where it can be read without
    /// suspending (the server's memory, the cache's disk tier) answered on the event loop that read
    /// it, without the routes' task (the same fields and bytes, in order with the connection's
    /// other answers).
    ///
    /// - Parameters:
    ///   - limits: The connections' timeouts and number.
    ///   - prefix: The prefix ``addRoutes(to:prefix:)`` was given.
    ///   - serverName: The application's `serverName`, which the answers given on the event loop carry too.
    ///   - logger: Where reaching the connection limit is reported.
    public func http1Server(
        limits: ConnectionLimits, prefix: String = "", serverName: String?, logger: Logger
    ) -> HTTPServerBuilder {
        limits.http1Server(logger: logger) { [self] in
            [CachedAnswerHandler(server: self, prefix: prefix, serverName: serverName)]
        }
    }

    /// Stops the HTTP client and the decode threads; call once the application has stopped.
    public func shutdown() async throws {
        try await flow.shutdown()
    }

    /// The answer to one image request (`path` below the routes' prefix): the image, or a 304.
    ///
    /// - Throws: ``ServeError`` for a request refused or failed.
    func imageResponse(to request: HTTPRequest, path: String, query: String?) async throws -> ImageResponse {
        // One URL per image: a query would make endless cache keys for a CDN in front.
        guard query == nil else { throw ServeError.badOptions("the path takes no query") }
        let image = try await image(for: path, accept: request.headerFields[.accept])
        return ConditionalRequest(ifNoneMatch: request.headerFields[.ifNoneMatch]).response(with: image)
    }

    /// The path that asks for a source's facts (``SourceInfo``) instead of an image:
    /// `/info/<signature>/<source>`, signed as an image path is (the part after the signature).
    static let infoPrefix = "/info"

    /// The answer to an image request when it is known without suspending (see
    /// ``cachedImage(for:accept:)``), made as ``imageResponse(to:path:query:)`` makes it: for the
    /// connection's ``CachedAnswerHandler``. `nil` for anything else (a miss, a query, a bad
    /// signature, a revalidation due): the routes answer those.
    func cachedResponse(path: String, accept: String?, ifNoneMatch: String?) -> ImageResponse? {
        guard let image = try? cachedImage(for: path, accept: accept) else { return nil }
        return ConditionalRequest(ifNoneMatch: ifNoneMatch).response(with: image)
    }

    /// The image for a path: authenticated, parsed, its source checked, then from the server's
    /// memory, the cache, or made.
    func image(for path: String, accept: String?) async throws -> Answer {
        let resolved: VariantFlow.Resolved
        if path.hasPrefix(Self.infoPrefix + "/") {
            let rest = String(path.dropFirst(Self.infoPrefix.count))
            _ = try configuration.authenticate(rest, accept: nil)
            resolved = try flow.resolveInfo(rest)
        } else {
            let accepted = try configuration.authenticate(path, accept: accept)
            resolved = try flow.resolve(path, accepting: accepted)
        }
        let key = resolved.variant.cacheKey
        if let answer = remembered(key, variesByAccept: resolved.variesByAccept) { return answer }
        let entry = try await resolved.make()
        return answers.remember(entry.value, cachedAt: entry.cachedAt, forKey: key, variesByAccept: resolved.variesByAccept)
    }

    // MARK: - Private

    /// The image for a path when it is known without suspending: authenticated, its variant known
    /// from a recent request (a remote source), and its answer in the server's memory, or in the
    /// cache's disk tier with its original current in the cache's memory (no revalidation due).
    /// `nil` when it must be resolved, checked with the origin, read from a shared tier or made.
    private func cachedImage(for path: String, accept: String?) throws -> Answer? {
        let accepted = try configuration.authenticate(path, accept: accept)
        guard let recent = flow.recent(path: path, accepting: accepted) else { return nil }
        let key = recent.variant.cacheKey
        if let answer = remembered(key, variesByAccept: recent.variesByAccept) { return answer }
        guard let entry = flow.cachedEntry(of: recent.variant) else { return nil }
        return answers.remember(entry.value, cachedAt: entry.cachedAt, forKey: key, variesByAccept: recent.variesByAccept)
    }

    /// The answer under `key` in the server's memory, counted.
    private func remembered(_ key: String, variesByAccept: Bool) -> Answer? {
        guard let answer = answers.answer(forKey: key, variesByAccept: variesByAccept) else { return nil }
        requestLog.metrics?.countMemoryHit()
        return answer
    }
}
