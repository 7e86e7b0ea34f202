import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// A connection's pipeline for Hummingbird, as its `HTTP1Channel` builds it, with the server's own
/// handlers where they see every request and answer: NIO's HTTP/1 codec, then the handlers
/// (``ConnectionWatch``, and the image server's ``CachedAnswerHandler``), then the conversion to
/// Swift HTTP Types and Hummingbird's handlers. A request the cache answers on the event loop never
/// pays for that conversion or for a task.
struct WatchedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    /// The handlers of one connection, made for each.
    let handlers: @Sendable () -> [any ChannelHandler]

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird's limits for a head.
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1_000
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandlers(handlers())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
