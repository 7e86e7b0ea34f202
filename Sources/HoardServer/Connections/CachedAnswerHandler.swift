import Foundation
import HTTPTypes
import HoardOriginals
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers, on the event loop that read it, an image request whose answer is cached where it can
/// be read without suspending — the server's memory, or the cache's disk tier with its original
/// current (``ImageServer/cachedResponse(path:accept:ifNoneMatch:)``): such a request costs no
/// task, no hop between threads and no conversion to Swift HTTP Types. Every other request goes on
/// to the application's routes, which answer it as they always do; so does one that arrives while
/// the routes still answer an earlier one.
///
/// It sits right after NIO's HTTP/1 codec (see ``WatchedHTTP1Channel``).
///
/// Invariant: answers leave in the order their requests arrived — this handler writes one only when
/// every request it passed on has been answered in full — and after the request has been read to
/// its end, as the routes' answers are.
final class CachedAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request this handler answers, as far as it has been read.
    private struct Pending {
        let method: HTTPMethod
        let path: String
        let accept: String?
        let answer: ImageResponse
        let started: ContinuousClock.Instant
    }

    private let server: ImageServer
    /// The image routes' prefix (see ``ImageServer/addRoutes(to:prefix:)``).
    private let prefix: String
    /// The `Server` field the application adds to its answers.
    private let serverName: String?
    /// Requests passed on to the routes whose answers have not ended.
    private var passedOn = 0
    /// The answer to the request being read, written once its end arrives.
    private var pending: Pending?
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
        case .head(let head):
            if passedOn == 0, let pending = remembered(head) {
                self.pending = pending
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let pending else {
                context.fireChannelRead(data)
                return
            }
            self.pending = nil
            write(pending, context: context)
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

    /// Memory's answer to a request the image routes would take: `GET` or `HEAD`, keeping the
    /// connection open, an origin-form target without a query below the prefix.
    private func remembered(_ head: HTTPRequestHead) -> Pending? {
        let started = ContinuousClock.now
        guard head.method == .GET || head.method == .HEAD, head.isKeepAlive, head.uri.utf8.first == UInt8(ascii: "/"),
            !head.uri.utf8.contains(UInt8(ascii: "?"))
        else { return nil }
        var path = head.uri
        if !prefix.isEmpty {
            guard path.hasPrefix(prefix + "/") else { return nil }
            path = String(path.dropFirst(prefix.count))
        }
        // Repeated fields are combined as Swift HTTP Types combines them for the routes.
        let accept = Self.combined(head.headers["accept"])
        let ifNoneMatch = Self.combined(head.headers["if-none-match"])
        guard let answer = server.cachedResponse(path: path, accept: accept, ifNoneMatch: ifNoneMatch) else {
            return nil
        }
        return Pending(method: head.method, path: head.uri, accept: accept, answer: answer, started: started)
    }

    /// Writes the answer as the application writes a route's: the route's fields (its length
    /// among them, also for `HEAD`), then `Date` and `Server`; no body for `HEAD`.
    private func write(_ pending: Pending, context: ChannelHandlerContext) {
        let answer = pending.answer
        var fields = answer.headers
        fields.append(HTTPField(name: .date, value: currentDate()))
        if let serverName { fields.append(HTTPField(name: .server, value: serverName)) }
        let head = HTTPResponseHead(HTTPResponse(status: answer.status, headerFields: fields))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if pending.method != .HEAD, let body = answer.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
        server.requestLog.answered(
            method: pending.method.rawValue, path: pending.path, accept: pending.accept, status: answer.status,
            contentType: answer.headers[.contentType], since: pending.started, logger: server.logger)
    }

    private func currentDate() -> String {
        let second = Int(Date().timeIntervalSince1970)
        if second != date.second { date = (second, HTTPDate.format(secondsSince1970: second)) }
        return date.text
    }

    /// A field's values (NIO's lookup ignores the name's case) as one, or `nil` for none.
    private static func combined(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

@available(*, unavailable)
extension CachedAnswerHandler: Sendable {}
