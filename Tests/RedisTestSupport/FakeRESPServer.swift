import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP listener on 127.0.0.1 that answers whatever it receives first with fixed bytes: a
/// misbehaving Redis, for protocol-error tests.
package final class FakeRESPServer: Sendable {
    package let port: Int
    private let channel: any Channel

    /// Starts listening on a free port; each connection gets `reply` after its first bytes.
    package static func start(replying reply: [UInt8]) async throws -> FakeRESPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ReplyOnce(reply: reply))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FakeRESPServer(channel: channel, port: channel.localAddress?.port ?? 0)
    }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    package func stop() async {
        try? await channel.close()
    }

    private final class ReplyOnce: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let reply: [UInt8]
        var replied = false

        init(reply: [UInt8]) { self.reply = reply }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !replied else { return }
            replied = true
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply)), promise: nil)
        }
    }
}
