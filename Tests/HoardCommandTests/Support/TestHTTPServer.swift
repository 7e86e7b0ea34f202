import Foundation
import HoardSystem
import NIOCore
import NIOHTTP1
import NIOPosix
import Hoard

/// An HTTP/1.1 server on 127.0.0.1 with canned routes, for end-to-end tests of the tool. It
/// counts every request it receives, and keeps each one's `Authorization` header and conditional
/// headers (`If-None-Match`, `If-Modified-Since`).
final class TestHTTPServer: Sendable {
    /// What a ``Reply/respond(_:)`` route sees of a request.
    struct Request: Sendable {
        let path: String
        /// `If-None-Match`, if sent.
        let ifNoneMatch: String?
        /// `If-Modified-Since`, if sent.
        let ifModifiedSince: String?
    }

    /// What a ``Reply/respond(_:)`` route answers: any status, any headers, a body (sent with its
    /// length; a 304's is not sent).
    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data
    }

    enum Reply: Sendable {
        /// Whatever the closure answers for each request: a server whose answers change, or that
        /// answers conditional requests.
        case respond(@Sendable (Request) -> Response)
        /// 200 with a body and a content type.
        case ok(Data, contentType: String)
        /// A bare status with a short text body.
        case status(Int)
        /// 302 to another path or URL.
        case redirect(to: String)
        /// Reads the request and never answers.
        case stall
        /// 200 with `count` bytes in chunks, without a content length.
        case chunked(count: Int)
        /// The first request is read and never answered (as ``stall``); later ones get 200 with
        /// the body: a download that hangs once.
        case stallOnce(Data, contentType: String)
        /// 200 with a body, sent `milliseconds` after the request: a slow server.
        case delayed(Data, contentType: String, milliseconds: Int64)
    }

    private let routes: [String: Reply]
    /// Whether a connection is closed, unanswered, when a second request arrives on it: what a
    /// server that drops idle kept-alive connections looks like to a client that reuses one.
    let closesReusedConnections: Bool
    private let requests = Lock<[String]>([])
    private let authorizations = Lock<[String: [String]]>([:])
    private let conditions = Lock<[String: [Request]]>([:])
    private let dropped = Lock(0)
    private let channel: Lock<(any Channel)?> = Lock(nil)

    init(routes: [String: Reply], closesReusedConnections: Bool = false) {
        self.routes = routes
        self.closesReusedConnections = closesReusedConnections
    }

    /// Starts listening on an ephemeral port of 127.0.0.1 and returns the base URL.
    func start() async throws -> String {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RouteHandler(server: self))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        channel.withLock { $0 = bound }
        return "http://127.0.0.1:\(bound.localAddress?.port ?? 0)"
    }

    func stop() async {
        let bound = channel.withLock { $0 }
        try? await bound?.close()
    }

    /// Every request path answered, in order.
    var requestedPaths: [String] { requests.withLock { $0 } }

    /// How many requests each path received.
    var requestCounts: [String: Int] {
        requests.withLock { Dictionary($0.map { ($0, 1) }, uniquingKeysWith: +) }
    }

    /// The `Authorization` header of each request for `path` ("" when it had none), in order.
    func authorizationHeaders(for path: String) -> [String] { authorizations.withLock { $0[path] ?? [] } }

    /// Each request for `path`, in order, with its conditional headers.
    func requests(for path: String) -> [Request] { conditions.withLock { $0[path] ?? [] } }

    /// How many requests were dropped by closing their connection (`closesReusedConnections`).
    var droppedRequestCount: Int { dropped.withLock { $0 } }

    fileprivate func reply(for request: Request, authorization: String) -> Reply {
        let path = request.path
        conditions.withLock { $0[path, default: []].append(request) }
        let isFirst = requests.withLock { requests in
            defer { requests.append(path) }
            return !requests.contains(path)
        }
        authorizations.withLock { $0[path, default: []].append(authorization) }
        switch routes[path] ?? .status(404) {
        case .stallOnce(let body, let contentType): return isFirst ? .stall : .ok(body, contentType: contentType)
        case .respond(let respond):
            let response = respond(request)
            return .respond { _ in response }
        case let reply: return reply
        }
    }

    fileprivate func countDropped() { dropped.withLock { $0 += 1 } }
}

/// Answers each request from the server's routes.
private final class RouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: TestHTTPServer
    var path = "/"
    var authorization = ""
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    /// Requests received on this connection.
    var requestCount = 0

    init(server: TestHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.uri
            authorization = head.headers.first(name: "authorization") ?? ""
            ifNoneMatch = head.headers.first(name: "if-none-match")
            ifModifiedSince = head.headers.first(name: "if-modified-since")
            requestCount += 1
        case .body: break
        case .end:
            if server.closesReusedConnections, requestCount > 1 {
                server.countDropped()
                context.close(promise: nil)
                return
            }
            let request = TestHTTPServer.Request(
                path: path, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
            respond(context: context, reply: server.reply(for: request, authorization: authorization))
        }
    }

    private func respond(context: ChannelHandlerContext, reply: TestHTTPServer.Reply) {
        var headers = HTTPHeaders()
        switch reply {
        case .stall, .stallOnce:
            return
        case .respond(let respond):
            let response = respond(TestHTTPServer.Request(path: path, ifNoneMatch: nil, ifModifiedSince: nil))
            for (name, value) in response.headers { headers.add(name: name, value: value) }
            let status = HTTPResponseStatus(statusCode: response.status)
            if response.status == 304 {
                send(context: context, status: status, headers: headers, chunks: [], declareLength: false)
            } else {
                send(context: context, status: status, headers: headers, chunks: [response.body])
            }
        case .delayed(let body, let contentType, let milliseconds):
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(milliseconds)) {
                self.respond(context: context, reply: .ok(body, contentType: contentType))
            }
        case .ok(let body, let contentType):
            headers.add(name: "content-type", value: contentType)
            send(context: context, status: .ok, headers: headers, chunks: [body])
        case .status(let code):
            let body = Data("status \(code)\n".utf8)
            send(context: context, status: HTTPResponseStatus(statusCode: code), headers: headers, chunks: [body])
        case .redirect(let location):
            headers.add(name: "location", value: location)
            send(context: context, status: .found, headers: headers, chunks: [Data()])
        case .chunked(let count):
            headers.add(name: "content-type", value: "image/jpeg")
            let chunk = Data(repeating: 0xFF, count: 64 * 1024)
            let chunks = (0..<(count / chunk.count)).map { _ in chunk }
            send(context: context, status: .ok, headers: headers, chunks: chunks, declareLength: false)
        }
    }

    private func send(
        context: ChannelHandlerContext, status: HTTPResponseStatus, headers: HTTPHeaders, chunks: [Data],
        declareLength: Bool = true
    ) {
        var headers = headers
        if declareLength { headers.add(name: "content-length", value: "\(chunks.reduce(0) { $0 + $1.count })") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        for chunk in chunks where !chunk.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
