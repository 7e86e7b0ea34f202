import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Hoard

/// An HTTP/1.1 server on 127.0.0.1 with canned routes, for end-to-end tests of the tool. It
/// counts every request it receives.
final class TestHTTPServer: Sendable {
    enum Reply: Sendable {
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
    }

    private let routes: [String: Reply]
    private let requests = Lock<[String]>([])
    private let channel: Lock<(any Channel)?> = Lock(nil)

    init(routes: [String: Reply]) {
        self.routes = routes
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

    /// Every request path received, in order.
    var requestedPaths: [String] { requests.withLock { $0 } }

    fileprivate func reply(for path: String) -> Reply {
        requests.withLock { $0.append(path) }
        return routes[path] ?? .status(404)
    }
}

/// Answers each request from the server's routes.
private final class RouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: TestHTTPServer
    var path = "/"

    init(server: TestHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): path = head.uri
        case .body: break
        case .end: respond(context: context, reply: server.reply(for: path))
        }
    }

    private func respond(context: ChannelHandlerContext, reply: TestHTTPServer.Reply) {
        var headers = HTTPHeaders()
        switch reply {
        case .stall:
            return
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
