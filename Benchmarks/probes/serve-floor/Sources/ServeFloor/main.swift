// The least work a SwiftNIO HTTP/1.1 server does to answer a request from memory: NIO's parser
// and encoder, a dictionary lookup by path, a head with the same fields hoard serve sends, the body,
// one flush per read. Usage: ServeFloor PORT FILE-OF-PATHS FOLDER (the bodies: FOLDER/<last component>).
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
let port = Int(arguments[1])!
var bodies: [String: ByteBuffer] = [:]
for line in try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n") {
    let name = line.split(separator: "%2F").last.map(String.init) ?? String(line)
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[3] + "/" + name))
    bodies[String(line)] = ByteBuffer(bytes: [UInt8](data))
}
let answers = bodies

final class Floor: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    var path: String?
    var needsFlush = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): path = head.uri
        case .body: break
        case .end:
            let body = answers[path ?? ""] ?? ByteBuffer()
            let headers = HTTPHeaders([
                ("ETag", "\"495f5a654319cc6586f0f82682a99fa3\""), ("Cache-Control", "public, max-age=86400"),
                ("Content-Type", "image/jpeg"), ("X-Content-Type-Options", "nosniff"),
                ("Content-Length", String(body.readableBytes)), ("Date", "Mon, 07 Dec 2026 00:34:33 GMT"),
                ("Server", "hoard"),
            ])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            needsFlush = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
            try channel.pipeline.syncOperations.addHandler(Floor())
        }
    }
    .bind(host: "127.0.0.1", port: port).wait()
print("listening on \(port)")
try channel.closeFuture.wait()
