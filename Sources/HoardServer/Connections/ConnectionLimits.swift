import Foundation
import HummingbirdCore
import Logging
import NIOCore

/// How long a client connection may take at each stage, and how many may be open at once.
///
/// The defaults are nginx's: 60 s to send a request's head (`client_header_timeout`), 60 s between
/// two reads of its body (`client_body_timeout`), 75 s idle between requests (`keepalive_timeout`)
/// and 60 s between two writes the client does not take (`send_timeout`). A connection past its
/// stage's time is closed. While a response is being made no timeout runs: the origin's timeout
/// and the work queue bound that stage.
///
/// ```swift
/// var limits = ConnectionLimits()
/// limits.headerTimeout = .seconds(10)
/// limits.maximumConnections = ConnectionLimits.connections(allowedBy: 1024)
/// let application = Application(router: router, server: limits.http1Server(logger: logger))
/// ```
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may take from its first byte (or its opening) to a request's whole head.
    public var headerTimeout: Duration = .seconds(60)
    /// How long a request's body may go without a byte arriving.
    public var bodyTimeout: Duration = .seconds(60)
    /// How long a connection may wait, idle, for its next request.
    public var keepAliveTimeout: Duration = .seconds(75)
    /// How long a response may wait for the client to take bytes it was sent.
    public var sendTimeout: Duration = .seconds(60)
    /// Connections open at once. At the limit a new connection displaces the one that has waited
    /// longest for a request (an idle keep-alive connection, or one that has sent nothing yet), as
    /// nginx does when it runs short; when every connection is busy, the new one is closed.
    public var maximumConnections = 10_000

    /// Limits with the defaults.
    public init() {}

    /// The most connections a process with `descriptors` open-file descriptors can hold while
    /// keeping room for what else it opens (the cache's files, origins, Redis, the event loops):
    /// a quarter of them, at least 64 and at most 4,096, are kept back.
    ///
    /// - Returns: At least 1.
    public static func connections(allowedBy descriptors: Int) -> Int {
        let reserve = min(4_096, max(64, descriptors / 4))
        return max(1, descriptors - reserve)
    }

    /// Checks every value.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` naming the first timeout that is not from a
    ///   millisecond to a day, or a connection limit below 1.
    public func validate() throws(ServeError) {
        let timeouts: [(String, Duration)] = [
            ("header timeout", headerTimeout), ("body timeout", bodyTimeout),
            ("keep-alive timeout", keepAliveTimeout), ("send timeout", sendTimeout),
        ]
        for (name, timeout) in timeouts where !(.milliseconds(1)...(.seconds(86_400))).contains(timeout) {
            throw .badOptions("\(name) \(timeout) is not from a millisecond to a day")
        }
        guard maximumConnections >= 1 else { throw .badOptions("maximum connections \(maximumConnections) is below 1") }
    }
}

extension ConnectionLimits {
    /// An HTTP/1.1 server for a Hummingbird `Application` that keeps its connections to these
    /// limits (see ``ConnectionLimits``).
    ///
    /// - Parameter logger: Where reaching the connection limit is reported (once a minute at most).
    public func http1Server(logger: Logger) -> HTTPServerBuilder {
        http1Server(logger: logger, handlers: { [] })
    }

    /// An HTTP/1.1 server that keeps its connections to these limits, with `handlers` (made for
    /// each connection) after the connection's watch (see ``WatchedHTTP1Channel``).
    func http1Server(logger: Logger, handlers: @escaping @Sendable () -> [any ChannelHandler]) -> HTTPServerBuilder {
        let registry = ConnectionRegistry(maximum: max(1, maximumConnections), logger: logger)
        let limits = self
        return HTTPServerBuilder { responder in
            WatchedHTTP1Channel(responder: responder) { [ConnectionWatch(registry: registry, limits: limits)] + handlers() }
        }
    }
}
