import Foundation
import HTTPTypes
import HoardOriginals
import NIOCore
import NIOHTTPTypes

/// Answers, on the event loop that read it, an image request whose answer the server's memory
/// holds (``ImageServer/rememberedResponse(to:path:)``): a warm request costs no task and no hop
/// between threads. Every other request goes on to the application's routes, which answer it as
/// they always do; so does one that arrives while the routes still answer an earlier one.
///
/// Invariant: answers leave in the order their requests arrived — this handler writes one only when
/// every request it passed on has been answered in full — and after the request has been read to
/// its end, as the routes' answers are.
final class MemoryAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let server: ImageServer
    /// The image routes' prefix (see ``ImageServer/addRoutes(to:prefix:)``).
    private let prefix: String
    /// The `Server` field the application adds to its answers.
    private let serverName: String?
    /// Requests passed on to the routes whose answers have not ended.
    private var passedOn = 0
    /// The answer to the request being read, written once its end arrives.
    private var pending: (request: HTTPRequest, answer: ImageResponse, started: ContinuousClock.Instant)?
    private var needsFlush = false
    /// The `Date` field, made again when the second changes.
    private var date: (second: Int, text: String) = (-1, "")

    init(server: ImageServer, prefix: String, serverName: String?) {
        self.server = server
        self.prefix = prefix
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if passedOn == 0, let path = imagePath(of: request),
                let answer = server.rememberedResponse(to: request, path: path)
            {
                pending = (request, answer, started)
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (request, answer, started) = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            write(answer, to: request, context: context)
            server.answered(request, with: answer, since: started, logger: server.logger)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }

    /// The path below the prefix of a request the image routes would take: `GET` or `HEAD`, an
    /// origin-form target without a query, and not one that asks to close the connection (the
    /// application closes it after answering).
    private func imagePath(of request: HTTPRequest) -> String? {
        guard request.method == .get || request.method == .head, let target = request.path,
            target.utf8.first == UInt8(ascii: "/"), !target.utf8.contains(UInt8(ascii: "?")),
            request.headerFields[.connection] == nil
        else { return nil }
        guard !prefix.isEmpty else { return target }
        guard target.hasPrefix(prefix + "/") else { return nil }
        return String(target.dropFirst(prefix.count))
    }

    /// Writes `answer` as the application writes a route's: the route's fields, then `Date` and
    /// `Server`; no body for `HEAD`.
    private func write(_ answer: ImageResponse, to request: HTTPRequest, context: ChannelHandlerContext) {
        var head = answer.response(for: request.method).head
        head.headerFields[.date] = currentDate()
        if let serverName { head.headerFields[.server] = serverName }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .head, let body = answer.body {
            context.write(wrapOutboundOut(.body(body)), promise: nil)
        }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
    }

    private func currentDate() -> String {
        let second = Int(Date().timeIntervalSince1970)
        if second != date.second { date = (second, HTTPDate.format(secondsSince1970: second)) }
        return date.text
    }
}

@available(*, unavailable)
extension MemoryAnswerHandler: Sendable {}
