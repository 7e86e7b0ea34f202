import Logging
import NIOCore
import NIOHTTP1

/// Keeps one connection to its ``ConnectionLimits``: registers it (displacing or refused at the
/// limit), follows its request cycle in a ``ConnectionTimeline`` and closes it when its stage's
/// time runs out.
///
/// It sits after HTTP decoding (it sees request and response parts) and puts a ``ByteWatch``
/// first in the pipeline, which tells it when raw bytes arrive: the start of a head, or more of a
/// body, before the decoder has a part to pass on.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: ConnectionRegistry
    private var timeline: ConnectionTimeline
    private var entry: ConnectionRegistry.Entry?
    private var timer: Scheduled<Void>?
    /// When ``timer`` fires: never later than the timeline's deadline.
    private var timerDeadline: NIODeadline?

    init(registry: ConnectionRegistry, limits: ConnectionLimits) {
        self.registry = registry
        timeline = ConnectionTimeline(limits: limits, openedAt: .now())
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added as the connection is set up, right after `init` started its timeline.
        let entry = ConnectionRegistry.Entry(channel: context.channel, waitingSince: .now())
        switch registry.admit(entry) {
        case .refused:
            context.close(promise: nil)
            return
        case .admitted(let displaced):
            displaced?.channel.close(promise: nil)
        }
        self.entry = entry
        context.channel.closeFuture.whenComplete { [registry] _ in registry.remove(entry) }
        do {
            try context.pipeline.syncOperations.addHandler(ByteWatch(watch: self, context: context), position: .first)
        } catch {
            context.close(promise: nil)
            return
        }
        scheduleTimer(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now()
        switch unwrapInboundIn(data) {
        case .head:
            timeline.headRead(at: now)
            entry?.markWaiting(since: nil)
        case .body:
            timeline.bytesArrived(at: now)
        case .end:
            timeline.requestEnded()
        }
        scheduleTimer(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            let now = NIODeadline.now()
            timeline.responseEnded(at: now)
            if timeline.isIdle { entry?.markWaiting(since: now) }
            scheduleTimer(context)
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        timeline.writabilityChanged(writable: context.channel.isWritable, at: .now())
        scheduleTimer(context)
        context.fireChannelWritabilityChanged()
    }

    /// Raw bytes arrived (from ``ByteWatch``).
    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        let wasIdle = timeline.isIdle
        timeline.bytesArrived(at: .now())
        if wasIdle {
            entry?.markWaiting(since: nil)
            scheduleTimer(context)
        }
    }

    /// Makes the timer fire no later than the timeline's deadline. A timer due earlier is kept:
    /// when it fires it looks again, so a busy connection reschedules about once per timeout.
    private func scheduleTimer(_ context: ChannelHandlerContext) {
        guard let deadline = timeline.deadline else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            if timeline.hasExpired(at: .now()) {
                context.close(promise: nil)
            } else {
                scheduleTimer(context)
            }
        }
    }
}

/// The first handler of a connection's pipeline: tells its ``ConnectionWatch`` when bytes arrive.
final class ByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let watch: ConnectionWatch
    private let watchContext: ChannelHandlerContext

    fileprivate init(watch: ConnectionWatch, context: ChannelHandlerContext) {
        self.watch = watch
        watchContext = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        watch.bytesArrived(watchContext)
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension ConnectionWatch: Sendable {}

@available(*, unavailable)
extension ByteWatch: Sendable {}
