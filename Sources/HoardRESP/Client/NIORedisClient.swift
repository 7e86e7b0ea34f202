import HoardSystem
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A Redis client on SwiftNIO: one connection, opened on first use, shared by every caller, with
/// commands pipelined on it and a deadline on each.
///
/// - **Pipelining.** Commands from concurrent tasks go out on the one connection as they come,
///   without waiting for earlier replies; replies are matched to commands in order.
/// - **Deadlines.** Connecting (TCP, TLS, `AUTH`, `SELECT`) is bounded by
///   ``RedisConfiguration/connectTimeout``, and every command by
///   ``RedisConfiguration/commandTimeout`` from when it is written: a server that accepts
///   connections but never answers (paused, overloaded) fails commands with
///   ``RedisClientError/timedOut(command:timeout:)`` on time. A call to ``send(_:)`` takes at
///   most the sum of the two.
/// - **Failures.** The first failure on a connection (a deadline, a protocol error, the server
///   closing it) fails every command in flight on it and closes it; later replies on it could not
///   be trusted.
/// - **Reconnecting.** Lazily: the next command after a failure opens a new connection, and each
///   command after a failed attempt tries again. When to stop trying is the caller's decision
///   (a circuit breaker's), not the client's.
///
/// ```swift
/// let client = try NIORedisClient(configuration: RedisConfiguration(url: "redis://127.0.0.1:6379/0"))
/// try await client.set("greeting", to: Array("hello".utf8), expiration: .after(milliseconds: 60_000))
/// let value = try await client.get("greeting")
/// await client.close()
/// ```
///
/// Safe to use from any task: its state is behind one lock.
public final class NIORedisClient: RedisCommandExecuting {
    /// Where the connection is.
    private enum State: Sendable {
        case idle
        /// `future` is the one commands wait for; `attempt` is set once the attempt has started.
        case connecting(future: EventLoopFuture<NIORedisConnection>, attempt: NIORedisConnection.Attempt?)
        case connected(NIORedisConnection)
        case closed
    }

    /// The configuration, validated.
    public let configuration: RedisConfiguration
    /// The loop every connection of this client runs on.
    private let eventLoop: any EventLoop
    /// An executor on the loop the connection runs on: tasks that prefer it save two thread
    /// hand-overs per command (see ``EventLoopTaskExecutor``).
    public let taskExecutor: EventLoopTaskExecutor
    private let sslContext: NIOSSLContext?
    private let state = NIOLockedValueBox(State.idle)

    /// A client for the server `configuration` describes; it connects on the first command.
    ///
    /// ```swift
    /// var configuration = RedisConfiguration(host: "127.0.0.1", port: 6379)
    /// configuration.password = environment["REDIS_PASSWORD"]
    /// let client = try NIORedisClient(configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The server, credentials, TLS, deadlines and reply limit.
    ///   - eventLoopGroup: The group whose next loop every connection of this client runs on
    ///     (``taskExecutor`` runs jobs there); NIO's shared singleton by default. The caller owns
    ///     it: the client never shuts it down.
    /// - Throws: ``RedisClientError/invalidValue(_:)`` for a field
    ///   ``RedisConfiguration/validate()`` refuses; ``RedisClientError/tlsFailed(host:port:underlying:)``
    ///   when the TLS settings cannot be loaded (an unreadable or invalid certificate file).
    /// - Complexity: O(1), plus reading the certificate file with TLS.
    public init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(RedisClientError) {
        try configuration.validate()
        self.configuration = configuration
        eventLoop = eventLoopGroup.next()
        taskExecutor = EventLoopTaskExecutor(eventLoop: eventLoop)
        if let tls = configuration.tls {
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            do {
                // The certificates are read here rather than by NIOSSLContext: its initializer
                // leaked the SSL_CTX it had made when the file could not be loaded (LeakSanitizer).
                if case .certificateFile(let path) = tls.trustRoots {
                    tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
                }
                sslContext = try NIOSSLContext(configuration: tlsConfiguration)
            } catch {
                throw .tlsFailed(host: configuration.host, port: configuration.port, underlying: error)
            }
        } else {
            sslContext = nil
        }
    }

    deinit {
        let previous = state.withLockedValue { state in
            defer { state = .closed }
            return state
        }
        switch previous {
        case .connected(let connection): connection.channel.close(promise: nil)
        case .connecting(_, let attempt): attempt?.abort(.clientClosed)
        case .idle, .closed: break
        }
    }

    /// Sends one command on the shared connection, connecting first if there is none.
    ///
    /// ```swift
    /// let reply = try await client.send(["CLIENT", "ID"])  // .integer(7)
    /// ```
    ///
    /// - Parameter command: The command's name and arguments; not empty.
    /// - Returns: The reply; a top-level error reply is thrown instead.
    /// - Throws: ``RedisClientError``: ``RedisClientError/invalidValue(_:)``
    ///   for an empty command; connect, TLS, authentication and timeout errors; the server's error
    ///   reply (``RedisClientError/init(serverErrorMessage:command:)``); ``RedisClientError/clientClosed``
    ///   after ``close()``.
    /// - Complexity: One round trip, plus a connection when none is open.
    public func send(_ command: [RESPArgument]) async throws(RedisClientError) -> RESPValue {
        guard !command.isEmpty else {
            throw .invalidValue(
                InvalidValueError(field: "command", value: "[]", requirement: "a command name and its arguments"))
        }
        let connection = try await usableConnection()
        switch await connection.reply(to: command) {
        case .success(.error(let message)):
            throw RedisClientError(serverErrorMessage: message, command: NIORedisConnection.commandName(command))
        case .success(let reply):
            return reply
        case .failure(let error):
            throw error
        }
    }

    /// Closes the connection; later commands fail with ``RedisClientError/clientClosed``.
    ///
    /// Commands in flight fail with ``RedisClientError/connectionClosed(command:underlying:)``.
    /// Returns once the connection is closed. Closing twice does nothing more.
    ///
    /// ```swift
    /// await client.close()
    /// ```
    ///
    /// - Complexity: O(1), plus the time the channel takes to close.
    public func close() async {
        let previous = state.withLockedValue { state in
            defer { state = .closed }
            return state
        }
        switch previous {
        case .connected(let connection):
            try? await connection.close().get()
        case .connecting(let future, let attempt):
            // Gives up on the attempt; should it complete anyway, the connecting code sees
            // `.closed`, closes the new connection, and fails `future`.
            attempt?.abort(.clientClosed)
            _ = try? await future.get()
        case .idle, .closed:
            break
        }
    }

    /// Whether a connection is open and usable now (the next command will not connect first).
    ///
    /// ```swift
    /// if !client.isConnected { print("the next command reconnects") }
    /// ```
    ///
    /// - Complexity: O(1).
    public var isConnected: Bool {
        guard case .connected(let connection) = state.withLockedValue({ $0 }) else { return false }
        return connection.isUsable
    }
}

// MARK: - Connection management

extension NIORedisClient {
    /// What a command does to get a connection.
    private enum Step {
        case use(NIORedisConnection)
        case wait(EventLoopFuture<NIORedisConnection>)
        case start(EventLoopPromise<NIORedisConnection>)
        case closed
    }

    /// The open connection, or the one being opened, or a new one.
    private func usableConnection() async throws(RedisClientError) -> NIORedisConnection {
        let step = state.withLockedValue { state -> Step in
            switch state {
            case .connected(let connection) where connection.isUsable:
                return .use(connection)
            case .connecting(let future, _):
                return .wait(future)
            case .closed:
                return .closed
            case .idle, .connected:
                let promise = eventLoop.makePromise(of: NIORedisConnection.self)
                state = .connecting(future: promise.futureResult, attempt: nil)
                return .start(promise)
            }
        }
        switch step {
        case .use(let connection):
            return connection
        case .closed:
            throw .clientClosed
        case .wait(let future):
            return try await Self.value(of: future, command: "connect")
        case .start(let promise):
            startConnecting(completing: promise)
            return try await Self.value(of: promise.futureResult, command: "connect")
        }
    }

    /// Opens a connection and records it before completing `promise`, so that anyone who sees
    /// the outcome also sees the state that follows from it (a failed attempt leaves `.idle`,
    /// and the next command tries again).
    private func startConnecting(completing promise: EventLoopPromise<NIORedisConnection>) {
        let state = self.state
        let attempt = NIORedisConnection.connect(
            configuration: configuration, sslContext: sslContext, eventLoop: promise.futureResult.eventLoop)
        let stillWanted = state.withLockedValue { state -> Bool in
            guard case .connecting(let future, nil) = state, future === promise.futureResult else { return false }
            state = .connecting(future: future, attempt: attempt)
            return true
        }
        if !stillWanted { attempt.abort(.clientClosed) }
        attempt.future.whenComplete { result in
            let current = state.withLockedValue { state -> Bool in
                guard case .connecting(let future, _) = state, future === promise.futureResult else { return false }
                switch result {
                case .success(let connection): state = .connected(connection)
                case .failure: state = .idle
                }
                return true
            }
            if case .success(let connection) = result {
                guard current else {
                    // The client was closed while connecting.
                    connection.close().whenComplete { _ in promise.fail(RedisClientError.clientClosed) }
                    return
                }
                connection.channel.closeFuture.whenComplete { _ in
                    state.withLockedValue { state in
                        if case .connected(let open) = state, open === connection { state = .idle }
                    }
                }
            }
            promise.completeWith(result)
        }
    }

    /// The value of `future`, its failure as a ``RedisClientError``.
    private static func value<Value: Sendable>(
        of future: EventLoopFuture<Value>, command: String
    ) async throws(RedisClientError) -> Value {
        do {
            return try await future.get()
        } catch let error as RedisClientError {
            throw error
        } catch {
            throw .connectionClosed(command: command, underlying: error)
        }
    }
}
