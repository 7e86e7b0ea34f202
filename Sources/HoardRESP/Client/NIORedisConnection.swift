import HoardSystem
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// One connection to a Redis server: a channel with a ``RedisReplyHandler`` (behind TLS when
/// configured), authenticated and with its database selected.
///
/// Made by ``connect(configuration:sslContext:eventLoop:)``, used by ``NIORedisClient`` until
/// it fails; a connection is never reused after a failure (``isUsable`` turns `false`).
///
/// ```swift
/// let attempt = NIORedisConnection.connect(configuration: configuration, sslContext: nil, eventLoop: loop)
/// let connection = try await attempt.future.get()
/// let reply = try await connection.reply(to: ["PING"]).get()
/// ```
final class NIORedisConnection: Sendable {
    /// The channel.
    let channel: any Channel
    /// The channel's handler, which commands are handed to on the channel's loop.
    private let handler: NIOLoopBound<RedisReplyHandler>
    /// The first failure on the connection, recorded by the handler (or by ``close()``).
    private let failureBox: NIOLockedValueBox<RedisClientError?>
    /// Commands sent from other threads than the loop's, waiting to be handed to the handler.
    /// Concurrent callers append here, and the one that finds it empty schedules one event-loop
    /// task that hands them all over: commands sent while the loop is busy go out in one
    /// `write(2)`, as a pipelining client's do.
    private let outbox = NIOLockedValueBox<[RedisReplyHandler.Request]>([])

    private init(
        channel: any Channel, handler: NIOLoopBound<RedisReplyHandler>,
        failureBox: NIOLockedValueBox<RedisClientError?>
    ) {
        self.channel = channel
        self.handler = handler
        self.failureBox = failureBox
    }

    /// Whether commands can be sent: the channel is open and nothing failed on it.
    ///
    /// - Complexity: O(1).
    var isUsable: Bool { channel.isActive && failureBox.withLockedValue { $0 == nil } }

    /// Sends `command` and waits for its reply.
    ///
    /// A caller on the connection's event loop (a task preferring ``NIORedisClient/taskExecutor``)
    /// hands the command to the handler directly and is resumed by the reply on the same thread.
    ///
    /// - Parameter command: The command's name and arguments; not empty.
    /// - Returns: The reply (error replies included, as ``RESPValue/error(_:)``), or a
    ///   ``RedisClientError``: a timeout, the connection closing, a protocol error.
    /// - Complexity: O(n) in the command's size to encode it.
    func reply(to command: [RESPArgument]) async -> Result<RESPValue, RedisClientError> {
        let bytes = encoded(command)
        let reply = await withUnsafeContinuation { continuation in
            submit(RedisReplyHandler.Request(bytes: bytes, command: command, completion: .continuation(continuation)))
        }
        ThreadSanitizer.taskResumed()
        return reply
    }

    /// Writes `command` and returns the future of its reply, for future chains (the handshake).
    ///
    /// - Parameter command: The command's name and arguments; not empty.
    /// - Returns: The reply (error replies included), or a failure with a ``RedisClientError``.
    /// - Complexity: O(n) in the command's size to encode it.
    func send(_ command: [RESPArgument]) -> EventLoopFuture<RESPValue> {
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        submit(RedisReplyHandler.Request(bytes: encoded(command), command: command, completion: .promise(promise)))
        return promise.futureResult
    }

    private func encoded(_ command: [RESPArgument]) -> ByteBuffer {
        let count = RESPEncoder.encodedByteCount(ofCommand: command)
        var bytes = channel.allocator.buffer(capacity: count)
        bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: count) {
            RESPEncoder.encodeCommand(command, byteCount: count, into: $0)
        }
        return bytes
    }

    /// Hands `request` to the handler: at once on the loop, else through the outbox.
    private func submit(_ request: RedisReplyHandler.Request) {
        if channel.eventLoop.inEventLoop { return handler.value.submit(request) }
        let isFirst = outbox.withLockedValue { outbox in
            outbox.append(request)
            return outbox.count == 1
        }
        guard isFirst else { return }
        let outbox = self.outbox
        let handler = self.handler
        channel.eventLoop.execute {
            let batch = outbox.withLockedValue { outbox in
                defer { outbox.removeAll(keepingCapacity: true) }
                return outbox
            }
            for request in batch { handler.value.submit(request) }
        }
    }

    /// Closes the channel.
    ///
    /// - Returns: When it is closed.
    func close() -> EventLoopFuture<Void> {
        failureBox.withLockedValue { $0 = $0 ?? .clientClosed }
        let closed = channel.eventLoop.makePromise(of: Void.self)
        channel.close(promise: nil)
        channel.closeFuture.cascade(to: closed)
        return closed.futureResult
    }

    /// Commands whose second word names a subcommand.
    private static let containerCommands: Set<String> = [
        "ACL", "CLIENT", "CLUSTER", "COMMAND", "CONFIG", "FUNCTION", "MEMORY", "MODULE", "OBJECT", "SCRIPT", "XINFO",
    ]

    /// The name of `command` for errors: its first argument in capitals, and for commands with
    /// subcommands (`CLIENT ID`, `SCRIPT LOAD`, `ACL SETUSER`) the second; never more.
    static func commandName(_ command: [RESPArgument]) -> String {
        func word(_ argument: RESPArgument) -> String {
            String(decoding: argument.bytes.prefix(32), as: UTF8.self).uppercased()
        }
        guard let first = command.first else { return "(empty command)" }
        let name = word(first)
        guard containerCommands.contains(name), command.count > 1 else { return name }
        return name + " " + word(command[1])
    }
}

// MARK: - Connecting

extension NIORedisConnection {
    /// A connection being opened: its future, and a way to give up on it.
    struct Attempt: Sendable {
        /// The connection once open and ready.
        let future: EventLoopFuture<NIORedisConnection>
        /// Fails `future` with the error given (unless it is complete already) and closes the
        /// channel if one was made.
        let abort: @Sendable (RedisClientError) -> Void
    }

    /// Opens a connection: TCP (and TLS), then `AUTH` and `SELECT` as configured, or `PING` when
    /// neither is, so that a connection is only returned once the server has answered on it.
    ///
    /// - Parameters:
    ///   - configuration: A validated configuration.
    ///   - sslContext: The TLS context when the configuration has TLS, else `nil`.
    ///   - eventLoop: The loop the connection runs on.
    /// - Returns: The attempt, whose future gives the connection, or fails with a
    ///   ``RedisClientError``: connect failed or timed out (the whole sequence is bounded by
    ///   `connectTimeout`), TLS failed, authentication failed, `SELECT` refused, or the error
    ///   the attempt was aborted with.
    static func connect(
        configuration: RedisConfiguration, sslContext: NIOSSLContext?, eventLoop: any EventLoop
    ) -> Attempt {
        let host = configuration.host
        let port = configuration.port
        let connectTimeout = configuration.connectTimeout
        let failureBox = NIOLockedValueBox<RedisClientError?>(nil)
        let serverName = configuration.tls?.serverName ?? host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        // SNI carries host names only; for an IP address the certificate is
                        // checked against the address itself.
                        let hostname = isIPAddress(serverName) ? nil : serverName
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: hostname))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        RedisReplyHandler(
                            host: host, port: port, commandTimeout: configuration.commandTimeout,
                            maximumReplyByteCount: configuration.maximumReplyByteCount, failureBox: failureBox))
                }
            }
        let channelFuture = bootstrap.connect(host: host, port: port).flatMapErrorThrowing { error -> any Channel in
            if let error = error as? RedisClientError { throw error }
            if case ChannelError.connectTimeout = error {
                throw RedisClientError.connectTimedOut(host: host, port: port, timeout: connectTimeout)
            }
            throw RedisClientError.connectFailed(host: host, port: port, underlying: error)
        }
        let connectionFuture = channelFuture.flatMap { channel -> EventLoopFuture<NIORedisConnection> in
            // On the channel's loop, where the handler lives.
            let connection: NIORedisConnection
            do {
                let handler = try channel.pipeline.syncOperations.handler(type: RedisReplyHandler.self)
                let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
                connection = NIORedisConnection(channel: channel, handler: bound, failureBox: failureBox)
            } catch {
                // The handler is gone when the channel failed and closed before this ran (a TLS
                // handshake refused at once): what it recorded is the cause.
                channel.close(promise: nil)
                let recorded = failureBox.withLockedValue { $0 }
                return channel.eventLoop.makeFailedFuture(
                    recorded ?? RedisClientError.connectionClosed(command: "connect", underlying: error))
            }
            return connection.handshake(configuration).map { connection }.flatMapError { error in
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        // Everything here runs on `eventLoop`, so either an abort (the deadline, or the client
        // closing) comes first, fails the promise and closes the channel (failing the handshake),
        // or the connection completes first and the abort finds the promise complete.
        let promise = eventLoop.makePromise(of: NIORedisConnection.self)
        let abort: @Sendable (RedisClientError) -> Void = { error in
            eventLoop.execute {
                promise.fail(error)
                channelFuture.whenSuccess { $0.close(promise: nil) }
            }
        }
        let deadline = eventLoop.scheduleTask(in: TimeAmount(connectTimeout)) {
            abort(.connectTimedOut(host: host, port: port, timeout: connectTimeout))
        }
        connectionFuture.whenComplete { result in
            deadline.cancel()
            promise.completeWith(result)
        }
        return Attempt(future: promise.futureResult, abort: abort)
    }

    /// `AUTH`, then `SELECT`; `PING` when neither is needed.
    private func handshake(_ configuration: RedisConfiguration) -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        var steps: [(command: [RESPArgument], check: @Sendable (RESPValue) throws -> Void)] = []
        if let password = configuration.password {
            let user = configuration.username
            var command: [RESPArgument] = ["AUTH"]
            if let user { command.append(RESPArgument(user)) }
            command.append(RESPArgument(password))
            steps.append(
                (
                    command,
                    { reply in
                        switch reply {
                        case .simpleString("OK"): return
                        case .error(let message):
                            // Redis never repeats the password in its replies; this makes sure.
                            let redacted = password.isEmpty ? message : message.replacing(password, with: "***")
                            throw RedisClientError.authenticationFailed(user: user, message: redacted)
                        default:
                            throw RedisClientError.unexpectedReply(
                                command: "AUTH", expected: "OK", received: reply.summary)
                        }
                    }
                ))
        }
        if configuration.database != 0 {
            steps.append(
                (["SELECT", RESPArgument(configuration.database)], { try Self.expectOK($0, command: "SELECT") }))
        }
        if steps.isEmpty {
            steps.append(
                (
                    ["PING"],
                    { reply in
                        if case .error(let message) = reply {
                            throw RedisClientError(serverErrorMessage: message, command: "PING")
                        }
                    }
                ))
        }
        var future = eventLoop.makeSucceededVoidFuture()
        for step in steps {
            future = future.flatMap { self.send(step.command) }.flatMapThrowing { try step.check($0) }
        }
        return future
    }

    private static func expectOK(_ reply: RESPValue, command: String) throws {
        switch reply {
        case .simpleString("OK"): return
        case .error(let message): throw RedisClientError(serverErrorMessage: message, command: command)
        default: throw RedisClientError.unexpectedReply(command: command, expected: "OK", received: reply.summary)
        }
    }
}

/// Whether `host` is an IPv4 or IPv6 address rather than a name.
private func isIPAddress(_ host: String) -> Bool {
    if host.contains(":") { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
        && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) }
}
