import Foundation
import HTTPTypes
import Hoard
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Prometheus
import Synchronization

/// A server over a fresh cache and a root folder of test images, and a loopback origin the test
/// starts (stopped when the test ends).
struct ServerFixture: Sendable {
    static let keys = "00112233445566778899aabbccddeeff,ffeeddccbbaa99887766554433221100"
    static let salts = "0a0b,0c0d"
    /// Signs with the first pair.
    static let signer = try! URLSigner(keys: keys, salts: salts)
    /// Signs with the second pair alone (an older key still accepted).
    static let oldSigner = try! URLSigner(keys: String(keys.suffix(32)), salts: "0c0d")

    let directory: TemporaryDirectory
    let hoard: Hoard
    /// The root folder's files: photo.jpg (800×600 colours), alpha.png (32×32 RGBA), text.jpg (not an
    /// image), cut.jpg (half of photo.jpg), big.jpg (over the byte limit).
    var root: String { directory.url(for: "root").path(percentEncoded: false) }

    static let photo: Data = {
        var pixels = [UInt8](repeating: 0, count: 800 * 600 * 3)
        for y in 0..<600 {
            for x in 0..<800 {
                let index = (y * 800 + x) * 3
                pixels[index] = UInt8(x * 255 / 799)
                pixels[index + 1] = UInt8(y * 255 / 599)
                pixels[index + 2] = UInt8((x / 100 + y / 100) % 2 * 200)
            }
        }
        return try! Image(width: 800, height: 600, format: .rgb8, pixels: pixels).jpegData(quality: 90)
    }()

    static let alphaPNG: Data = {
        let testImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appending(path: "TestImages/PngSuite/basn6a08.png")
        return try! Data(contentsOf: testImages)
    }()

    /// The maximum source bytes the fixture's servers use.
    static let maximumSourceBytes = 2_000_000

    /// - Parameter registry: Where the cache reports its metrics, if anywhere.
    init(registry: PrometheusCollectorRegistry? = nil, function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        let root = directory.url(for: "root")
        try FileManager.default.createDirectory(at: root.appending(path: "sub"), withIntermediateDirectories: true)
        try Self.photo.write(to: root.appending(path: "photo.jpg"))
        try Self.photo.write(to: root.appending(path: "sub/photo.jpg"))
        try Self.alphaPNG.write(to: root.appending(path: "alpha.png"))
        try Data("not an image at all".utf8).write(to: root.appending(path: "text.jpg"))
        try Self.photo.prefix(Self.photo.count / 2).write(to: root.appending(path: "cut.jpg"))
        try Data(count: Self.maximumSourceBytes + 1).write(to: root.appending(path: "big.jpg"))
        var configuration = Hoard.Configuration(name: "serve", directory: directory.cacheURL)
        configuration.memoryCostLimit = 64 << 20
        if let registry { configuration.metricsFactory = PrometheusMetricsFactory(registry: registry) }
        hoard = try Hoard(configuration: configuration)
    }

    /// The default configuration: signed URLs, unsigned allowed only when asked, the root folder.
    func configuration(allowing prefixes: [String] = [], unsigned: Bool = false) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(signer: Self.signer)
        configuration.allowsUnsigned = unsigned
        configuration.sources = try SourcePolicy(allowing: prefixes, localRoot: root)
        configuration.maximumSourceBytes = Self.maximumSourceBytes
        // Long enough for any answer on a loaded 2-core machine running the whole suite at once
        // (one may stall the test's tasks for tens of seconds); /slow runs ten minutes.
        configuration.requestTimeout = .seconds(120)
        configuration.presets = ["small": ["w:50", "f:png"]]
        return configuration
    }

    /// Runs `body` with a client of an ImageServer over this fixture's cache, served as `hoard
    /// serve` serves it (``ImageServer/http1Server(limits:prefix:serverName:logger:)``).
    func withServer<Value: Sendable>(
        _ configuration: ServerConfiguration, _ body: @Sendable (any TestClientProtocol, ImageServer) async throws -> Value
    ) async throws -> Value {
        let server = try ImageServer(hoard: hoard, configuration: configuration)
        do {
            let value = try await Self.serve(server) { client in try await body(client, server) }
            try await server.shutdown()
            return value
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// Runs `body` with a client of `server`'s routes on a loopback port: with its memory answers
    /// on the event loop, or (`answersOnLoop` false) with the routes alone.
    static func serve<Value: Sendable>(
        _ server: ImageServer, answersOnLoop: Bool = true, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let router = Router()
        server.addRoutes(to: router)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let http1 =
            answersOnLoop
            ? server.http1Server(limits: ConnectionLimits(), serverName: "hoard", logger: logger)
            : ConnectionLimits().http1Server(logger: logger)
        // Live, on a loopback port: the in-process `.router` framework's channels leak (LeakSanitizer).
        let application = Application(
            router: router, server: http1, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "hoard"),
            logger: logger)
        return try await application.test(.live) { client in try await body(client) }
    }

    /// A signed path for `source` with `options` (`name:value` segments).
    static func path(_ source: String, _ options: [String], signer: URLSigner = signer) throws -> String {
        let encoded = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return try signer.signedPath("/" + (options + [encoded]).joined(separator: "/"))
    }
}

/// A loopback origin: `/photo.jpg`, `/alpha.png`, `/text`, `/missing` (404), `/error` (500),
/// `/slow` (a byte every 200 ms for ten minutes), `/endless` (a body that never ends), `/redirect-photo`,
/// `/redirect-metadata` (to 169.254.169.254), `/counted.jpg` (counts its requests),
/// `/changing.jpg` (an ETag per ``version``).
final class Origin: Sendable {
    let requests = Mutex<[String: Int]>([:])
    /// Which image `/changing.jpg` serves (0 or 1), and the `If-None-Match` values it was sent.
    let version = Mutex(0)
    let conditions = Mutex<[String]>([])

    func count(_ path: String) -> Int { requests.withLock { $0[path] ?? 0 } }

    func run<Value: Sendable>(_ body: @Sendable (Int) async throws -> Value) async throws -> Value {
        let router = Router()
        router.middlewares.add(CountingMiddleware(origin: self))
        router.get("/photo.jpg") { _, _ in Self.image(ServerFixture.photo, "image/jpeg") }
        router.get("/counted.jpg") { _, _ in
            try await Task.sleep(for: .milliseconds(200))
            return Self.image(ServerFixture.photo, "image/jpeg")
        }
        router.get("/alpha.png") { _, _ in Self.image(ServerFixture.alphaPNG, "image/png") }
        // Always stale (max-age=0) with an ETag per version: revalidated on every request.
        router.get("/changing.jpg") { [self] request, _ in
            let current = version.withLock { $0 }
            let tag = "\"v\(current)\""
            let condition = request.headers[.ifNoneMatch]
            if let condition { conditions.withLock { $0.append(condition) } }
            var headers: HTTPFields = [.eTag: tag, .cacheControl: "max-age=0", .contentType: "image/jpeg"]
            if condition == tag { return Response(status: .notModified, headers: headers) }
            let body = current == 0 ? ServerFixture.photo : try GradientImage.data(width: 300, height: 200)
            headers[.contentLength] = String(body.count)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
        }
        router.get("/text") { _, _ in Self.image(Data("hello".utf8), "text/plain") }
        router.get("/error") { _, _ in Response(status: .internalServerError) }
        // Headers at once, then a byte every 200 ms for ten minutes, far past any time limit a test
        // sets for it: it stops when the client goes.
        router.get("/slow") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/jpeg"],
                body: ResponseBody { writer in
                    for _ in 0..<3_000 {
                        try await Task.sleep(for: .milliseconds(200))
                        try await writer.write(ByteBuffer(bytes: [0xFF]))
                    }
                })
        }
        router.get("/endless") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/jpeg"],
                body: ResponseBody { writer in
                    let chunk = ByteBuffer(repeating: 0xFF, count: 64 * 1024)
                    while !Task.isCancelled { try await writer.write(chunk) }
                })
        }
        router.get("/redirect-photo") { _, _ in Response(status: .found, headers: [.location: "/photo.jpg"]) }
        router.get("/redirect-metadata") { _, _ in
            Response(status: .found, headers: [.location: "http://169.254.169.254/latest/meta-data"])
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: Logger(label: "origin") { _ in SwiftLogNoOpLogHandler() })
        return try await application.test(.live) { client in
            guard let port = client.port else { throw CocoaError(.featureUnsupported) }
            return try await body(port)
        }
    }

    private static func image(_ data: Data, _ type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    private struct CountingMiddleware: RouterMiddleware {
        let origin: Origin

        func handle(
            _ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            origin.requests.withLock { $0[request.uri.path, default: 0] += 1 }
            return try await next(request, context)
        }
    }
}
