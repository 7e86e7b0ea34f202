import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hoard
import HoardOriginals
import HoardSystem
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// The image server as routes a Hummingbird application mounts: `GET <prefix>/health`,
/// `GET <prefix>/ready`, `GET <prefix>/metrics` (with a registry) and
/// `GET <prefix>/<signature>/<options>/<source>` (see ``ImagePath``).
///
/// A request is parsed, its signature checked, its source checked against the ``SourcePolicy``,
/// then answered from the cache or made once: the original read or downloaded, decoded (at most
/// ``ServerConfiguration/decodeConcurrency`` at once, ``ServerConfiguration/queueCapacity``
/// waiting, 503 beyond), resized and encoded, stored under the same keys `hoard thumbnails` uses.
/// One variant is made once per key in this process, and with a shared tier across machines.
///
/// ```swift
/// let server = try ImageServer(hoard: hoard, configuration: configuration)
/// let router = Router()
/// server.addRoutes(to: router)
/// try await Application(router: router).runService()
/// ```
public final class ImageServer: Sendable {
    let hoard: Hoard
    let configuration: ServerConfiguration
    let queue: WorkQueue
    /// Places for downloading and revalidating originals, per origin: a silent origin holds only
    /// its own, and memory stays bounded by the allow-list's origins times their places; 503 beyond.
    let originPlaces: OriginPlaces
    /// The threads decodes run on: the server's own, so that a decode never waits behind, or holds
    /// up, the cooperative pool or NIO's shared blocking-work threads (DNS lookups run there).
    let decodeThreads: NIOThreadPool
    let local: LocalSourceReader?
    let downloader: Downloader
    let originalCache: OriginalCache
    let logger: Logger
    let metrics: ServerMetrics?
    /// Answers recently made or read, by cache key: a warm request costs no disk read.
    let answers: MemoryCache<String, Answer>?
    /// What recent paths of remote sources resolved to: a repeated request skips parsing.
    let recentVariants = RecentVariants(byteLimit: 4 << 20)
    /// The heads of recent answers: an answer read again from disk is not hashed, nor its fields
    /// made, again.
    let answerHeads: AnswerHeads
    private let inFlight = Lock(0)

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
        metrics = configuration.metricsRegistry.map(ServerMetrics.init(registry:))
        answerHeads = AnswerHeads(byteLimit: 8 << 20, cacheControl: "public, max-age=\(configuration.cacheMaxAge)")
        // A short expiry bounds how long a removal made elsewhere (another machine, `hoard cache
        // forget`) or a changed origin goes unseen here.
        answers =
            configuration.memoryBytes > 0
            ? try? MemoryCache(
                configuration: .init(costLimit: configuration.memoryBytes, defaultExpiry: .seconds(60)))
            : nil
        queue = WorkQueue(concurrency: configuration.decodeConcurrency, waitingCapacity: configuration.queueCapacity)
        originPlaces = OriginPlaces(
            concurrency: configuration.originConcurrency, capacity: configuration.queueCapacity)
        decodeThreads = NIOThreadPool(numberOfThreads: configuration.decodeConcurrency)
        decodeThreads.start()
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

    /// Adds the routes to `router` below `prefix` (empty, or `/images` with no trailing slash:
    /// the full path before the signature, also when `router` is a group). Every route answers
    /// `HEAD` too, with `GET`'s headers and no body; an image's `HEAD` costs what its `GET` does (a
    /// variant not yet cached is made and cached, so that its length and entity tag are true).
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, prefix: String = "") {
        let group = prefix.isEmpty ? "" : prefix
        for method in [HTTPRequest.Method.get, .head] {
            router.on(RouterPath(group + "/health"), method: method) { request, _ in
                Self.withoutBodyForHead(request, Self.textResponse(.ok, "ok"))
            }
            router.on(RouterPath(group + "/ready"), method: method) { [self] request, _ in
                Self.withoutBodyForHead(request, await readiness())
            }
            if configuration.servesMetricsWithImages { addMetricsRoute(to: router, prefix: prefix, method: method) }
            router.on(RouterPath(group + "/**"), method: method) { [self] request, context in
                let started = ContinuousClock.now
                report(inFlightChange: 1)
                let answer = await respond(
                    to: request.head, path: String(request.uri.path.dropFirst(prefix.count)), query: request.uri.query)
                report(inFlightChange: -1)
                // With the request id Hummingbird puts in the context's logger.
                answered(
                    method: request.method.rawValue, path: request.uri.path, accept: request.headers[.accept], with: answer,
                    since: started, logger: context.logger)
                return answer.response(for: request.method)
            }
        }
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

    /// Adds `GET` and `HEAD` `<prefix>/metrics` to `router` (nothing without a metrics registry):
    /// for a router of its own on a private address, with
    /// ``ServerConfiguration/servesMetricsWithImages`` off.
    public func addMetricsRoute<Context: RequestContext>(to router: some RouterMethods<Context>, prefix: String = "") {
        for method in [HTTPRequest.Method.get, .head] { addMetricsRoute(to: router, prefix: prefix, method: method) }
    }

    private func addMetricsRoute<Context: RequestContext>(
        to router: some RouterMethods<Context>, prefix: String, method: HTTPRequest.Method
    ) {
        guard let metrics else { return }
        router.on(RouterPath(prefix + "/metrics"), method: method) { request, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            let response = Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
            return Self.withoutBodyForHead(request, response)
        }
    }

    /// `response` as a `HEAD` request gets it: the same headers, its length kept, no body.
    static func withoutBodyForHead(_ request: Request, _ response: Response) -> Response {
        withoutBodyForHead(request.method, response)
    }

    /// `response` as a request with `method` gets it: for `HEAD`, the same headers, its length
    /// kept, no body.
    static func withoutBodyForHead(_ method: HTTPRequest.Method, _ response: Response) -> Response {
        guard method == .head else { return response }
        var headers = response.headers
        if let length = response.body.contentLength, headers[.contentLength] == nil {
            headers[.contentLength] = String(length)
        }
        return Response(status: response.status, headers: headers, body: ResponseBody())
    }

    /// Updates the in-flight count and reports it with the queue's length.
    private func report(inFlightChange change: Int) {
        let requests = inFlight.withLock { count in
            count += change
            return count
        }
        metrics?.record(inFlight: requests, queueLength: queue.counts.waiting)
    }

    /// Stops the HTTP client and the decode threads; call once the application has stopped.
    public func shutdown() async throws {
        try await downloader.shutdown()
        try await decodeThreads.shutdownGracefully()
    }

    /// The answer to one image request (`path` below the routes' prefix): the image, a 304, or the
    /// error's status and message.
    func respond(to request: HTTPRequest, path: String, query: String?) async -> ImageResponse {
        do {
            // One URL per image: a query would make endless cache keys for a CDN in front.
            guard query == nil else { throw ServeError.badOptions("the path takes no query") }
            let accept = request.headerFields[.accept]
            let image = try await image(for: path, accept: accept)
            return response(with: image, ifNoneMatch: request.headerFields[.ifNoneMatch])
        } catch {
            let serveError = Self.serveError(error)
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            if case .overloaded(let seconds) = serveError { headers[.retryAfter] = "\(seconds)" }
            if serveError.status >= 500 {
                logger.warning("request failed", metadata: ["path": .string(path), "error": .string(serveError.description)])
            }
            return ImageResponse(
                status: HTTPResponse.Status(code: serveError.status), text: serveError.responseMessage, headers: headers)
        }
    }

    /// The answer to an image request when it is known without suspending (see
    /// ``cachedImage(for:accept:)``), made as ``respond(to:path:query:)`` makes it: for the
    /// connection's ``CachedAnswerHandler``. `nil` for anything else (a miss, a query, a bad
    /// signature, a revalidation due): the routes answer those.
    func cachedResponse(path: String, accept: String?, ifNoneMatch: String?) -> ImageResponse? {
        guard let image = try? cachedImage(for: path, accept: accept) else { return nil }
        return response(with: image, ifNoneMatch: ifNoneMatch)
    }

    /// The image's answer: a 200 with its bytes, or a 304 when `condition` names its entity tag.
    private func response(with image: Answer, ifNoneMatch condition: String?) -> ImageResponse {
        let head = image.head
        let notModified = head.entityTag.map { entityTag in condition.map { Self.matches($0, entityTag) } ?? false } ?? false
        var headers = notModified ? head.notModifiedFields : head.fields
        if image.variesByAccept { headers.append(HTTPField(name: .vary, value: "Accept")) }
        return ImageResponse(status: notModified ? .notModified : .ok, headers: headers, body: notModified ? nil : image.bytes)
    }

    /// Counts and logs an answered image request (one line each, at `info`).
    func answered(
        method: String, path: String, accept: String?, with answer: ImageResponse, since started: ContinuousClock.Instant,
        logger: Logger
    ) {
        let elapsed = ContinuousClock.now - started
        metrics?.count(status: answer.status.code)
        metrics?.record(.total, elapsed)
        logger.info(
            "\(method)",
            metadata: [
                "path": .string(path), "status": .stringConvertible(answer.status.code),
                "type": .string(answer.headers[.contentType] ?? "-"), "accept": .string(accept ?? "-"),
                "ms": .stringConvertible(elapsed.milliseconds),
            ])
    }

    /// What a request is answered with.
    struct Answer: Sendable {
        /// The encoded image, as it is written to every connection.
        let bytes: ByteBuffer
        /// Its entity tag and fields.
        let head: Head
        var variesByAccept: Bool

        /// An answer's entity tag and fields, made once for its bytes.
        struct Head: Sendable {
            /// From the content; `nil` when the system's SHA-256 failed (then no 304 is possible).
            let entityTag: String?
            /// A 200's fields but `Vary`: `ETag`, `Cache-Control`, `Content-Type`,
            /// `X-Content-Type-Options` and `Content-Length`.
            let fields: HTTPFields
            /// A 304's fields but `Vary`: the validators and caching fields of the 200 it stands
            /// for, and no representation fields (RFC 9110, 15.4.5).
            let notModifiedFields: HTTPFields

            init(bytes: Data, entityTag: String?, cacheControl: String) {
                self.entityTag = entityTag
                var fields = HTTPFields()
                if let entityTag { fields[.eTag] = entityTag }
                fields[.cacheControl] = cacheControl
                notModifiedFields = fields + [HTTPField(name: .contentLength, value: "0")]
                fields[.contentType] = ImageFormat(sniffing: bytes)?.mediaType ?? "application/octet-stream"
                fields[.xContentTypeOptions] = "nosniff"
                fields[.contentLength] = String(bytes.count)
                self.fields = fields
            }
        }
    }

    /// The image for a path when it is known without suspending: authenticated, its variant known
    /// from a recent request (a remote source), and its answer in the server's memory, or in the
    /// cache's disk tier with its original current in the cache's memory (no revalidation due).
    /// `nil` when it must be resolved, checked with the origin, read from a shared tier or made.
    private func cachedImage(for path: String, accept: String?) throws -> Answer? {
        let acceptsWebP = try authenticated(path, accept: accept)
        guard let recent = recentVariants.entry(path: path, acceptsWebP: acceptsWebP) else { return nil }
        let variant = recent.variant
        if let answer = rememberedAnswer(variant, variesByAccept: recent.variesByAccept) { return answer }
        guard originalCache.isCurrentInMemory(identifier: variant.thumbnailKey.source, thumbnailKey: variant.cacheKey),
            let entry = hoard.firstDiskEncodedEntry(Image.self, forKey: variant.cacheKey)
        else { return nil }
        return remember(entry, of: variant, variesByAccept: recent.variesByAccept)
    }

    /// The image for a path: authenticated, parsed, its source checked, then from the cache or made.
    func image(for path: String, accept: String?) async throws -> Answer {
        let acceptsWebP = try authenticated(path, accept: accept)
        let (variant, variesByAccept, produce) =
            if let recent = recentVariants.entry(path: path, acceptsWebP: acceptsWebP) {
                (recent.variant, recent.variesByAccept, origin(of: recent.variant, url: recent.url))
            } else {
                try resolve(path, acceptsWebP: acceptsWebP)
            }
        if let answer = rememberedAnswer(variant, variesByAccept: variesByAccept) { return answer }
        return remember(try await produce(), of: variant, variesByAccept: variesByAccept)
    }

    /// The answer for a variant's entry, kept in the server's memory.
    private func remember(_ entry: CacheEntry<Data>, of variant: Variant, variesByAccept: Bool) -> Answer {
        let bytes = entry.value
        let answer = Answer(
            bytes: ByteBuffer(data: bytes),
            head: answerHeads.head(forKey: variant.cacheKey, cachedAt: entry.cachedAt, bytes: bytes),
            variesByAccept: variesByAccept)
        try? answers?.setValue(answer, forKey: variant.cacheKey, cost: bytes.count)
        return answer
    }

    /// The variant's answer from the server's memory.
    private func rememberedAnswer(_ variant: Variant, variesByAccept: Bool) -> Answer? {
        guard var answer = answers?.value(forKey: variant.cacheKey) else { return nil }
        metrics?.countMemoryHit()
        // `f:webp` and `f:auto` for a WebP client share a key; only the latter varies.
        answer.variesByAccept = variesByAccept
        return answer
    }

    /// Checks the path's signature (first: an unauthenticated client learns nothing about options
    /// or presets) and returns whether the client takes WebP.
    private func authenticated(_ path: String, accept: String?) throws -> Bool {
        let (signature, signedPart) = try ImagePath.signature(of: path)
        try authenticate(signature: signature, signedPart: signedPart)
        return FormatNegotiation(accept: accept).acceptsWebP
    }

    private func authenticate(signature: String?, signedPart: String) throws(ServeError) {
        guard let signature else {
            guard configuration.allowsUnsigned else { throw .signatureRefused("unsigned URLs are not allowed") }
            return
        }
        guard let signer = configuration.signer else { throw .signatureRefused("no signing key is configured") }
        try signer.verify(signature: signature, signedPart: signedPart)
    }

    private func readiness() async -> Response {
        do {
            _ = try await hoard.retrieve(Data.self, forKey: "hoard-serve/readiness")
        } catch {
            logger.warning("not ready", metadata: ["error": .string("\(error)")])
            return Self.textResponse(.serviceUnavailable, "not ready: a cache tier fails (see the log)")
        }
        if let reason = await configuration.readinessCheck?() {
            logger.warning("not ready", metadata: ["error": .string(reason)])
            return Self.textResponse(.serviceUnavailable, "not ready: a required tier cannot be reached (see the log)")
        }
        return Self.textResponse(.ok, "ready")
    }

    /// Whether an `If-None-Match` value names `entityTag` (weak comparison, or `*`).
    static func matches(_ condition: String, _ entityTag: String) -> Bool {
        let strong = entityTag.hasPrefix("W/") ? String(entityTag.dropFirst(2)) : entityTag
        return condition.split(separator: ",").contains { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || (trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed) == strong
        }
    }

    /// A one-line plain-text answer, never sniffed as anything else.
    private static func textResponse(_ status: HTTPResponse.Status, _ message: String) -> Response {
        ImageResponse(status: status, text: message).response(for: .get)
    }
}
