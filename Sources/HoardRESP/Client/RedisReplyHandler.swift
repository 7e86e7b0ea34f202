import HoardSystem
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The channel handler of a Redis connection: writes the commands handed to ``submit(_:)``,
/// parses the replies with ``RESPParser`` and completes each command in the order the commands
/// were written (RESP2 answers in order), so that any number of commands can be in flight at once.
///
/// Commands do not travel down the pipeline: ``NIORedisConnection`` hands each one to
/// ``submit(_:)`` on the channel's event loop, which records it, writes its bytes from this
/// handler's context and flushes once per turn of the loop, so that the commands of one turn
/// leave in one `write(2)`. A command waits either on a promise (the connection's handshake) or
/// on a task's continuation (every command sent from Swift concurrency), resumed by the reply
/// with no future in between.
///
/// Each command has a deadline. The first failure (a deadline passed, bytes that are not RESP, a
/// reply over the size limit, a TLS or I/O error, the peer closing) fails every command in
/// flight, is recorded in the box shared with the connection and closes the channel: once one reply is missing or unreadable,
/// the replies after it cannot be matched to their commands. The command that failed gets the
/// specific error; the ones behind it get ``RedisClientError/connectionClosed(command:underlying:)``
/// with that error as the cause.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(
///     RedisReplyHandler(host: "127.0.0.1", port: 6379, commandTimeout: .seconds(5), maximumReplyByteCount: 1 << 26, failureBox: failureBox))
/// ```
///
/// Runs on its channel's event loop only, as every channel handler does.
final class RedisReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// What waits for a command's reply.
    enum Completion: Sendable {
        /// A promise, for commands sent from future chains.
        case promise(EventLoopPromise<RESPValue>)
        /// A suspended task, resumed with the reply or the error.
        case continuation(UnsafeContinuation<Result<RESPValue, RedisClientError>, Never>)

        /// Completes with `reply`.
        func succeed(_ reply: RESPValue) {
            switch self {
            case .promise(let promise): promise.succeed(reply)
            case .continuation(let continuation): continuation.resume(returning: .success(reply))
            }
        }

        /// Completes with `error`.
        func fail(_ error: RedisClientError) {
            switch self {
            case .promise(let promise): promise.fail(error)
            case .continuation(let continuation): continuation.resume(returning: .failure(error))
            }
        }
    }

    /// A command to write: its encoded bytes, the command itself (its name is worked out only
    /// for an error), and what waits for its reply. Completed exactly once.
    struct Request: Sendable {
        /// The encoded command.
        var bytes: ByteBuffer
        /// The command's words, kept for its name in errors; never put in an error whole.
        var command: [RESPArgument]
        /// Completed with the reply, or failed with a ``RedisClientError``.
        var completion: Completion

        /// The command's name (and subcommand), for errors.
        var commandName: String { NIORedisConnection.commandName(command) }
    }

    /// A command written and waiting for its reply.
    private struct Pending {
        var identifier: UInt64
        var command: [RESPArgument]
        var completion: Completion
        /// When the command fails unless its reply has come.
        var deadline: NIODeadline

        var commandName: String { NIORedisConnection.commandName(command) }
    }

    private let host: String
    private let port: Int
    private let commandTimeout: Duration
    private let maximumReplyByteCount: Int
    /// Shared with the connection: the first failure, recorded before any command learns of it,
    /// so that the client stops handing out this connection first, and so that a command written
    /// after the channel is gone gets the reason.
    private let failureBox: NIOLockedValueBox<RedisClientError?>
    private var parser: RESPParser
    private var pending = CircularBuffer<Pending>()
    private var nextIdentifier: UInt64 = 0
    /// The first failure; commands written after it fail at once.
    private var failure: RedisClientError?
    private var context: ChannelHandlerContext?
    /// Whether a flush is scheduled for the end of this turn of the loop.
    private var flushScheduled = false
    /// The one timer of the connection, armed while commands are in flight, for the oldest
    /// one's deadline (the commands' deadlines come in the order they were written): one timer
    /// rather than one per command, which would cost a scheduled task and its cancellation each.
    private var deadlineTimer: Scheduled<Void>?

    /// A handler for a connection to `host`:`port`.
    ///
    /// - Parameters:
    ///   - host: The server's host, for errors.
    ///   - port: Its port, for errors.
    ///   - commandTimeout: The longest a command waits for its reply once written.
    ///   - maximumReplyByteCount: The largest reply accepted.
    ///   - failureBox: Where the first failure is recorded.
    /// - Throws: ``RedisClientError/invalidValue(_:)`` when
    ///   `maximumReplyByteCount` cannot be a parser limit.
    init(
        host: String, port: Int, commandTimeout: Duration, maximumReplyByteCount: Int,
        failureBox: NIOLockedValueBox<RedisClientError?>
    ) throws(RedisClientError) {
        self.host = host
        self.port = port
        self.commandTimeout = commandTimeout
        self.maximumReplyByteCount = maximumReplyByteCount
        self.failureBox = failureBox
        do {
            parser = RESPParser(
                limits: try RESPParser.Limits(
                    maximumBulkStringLength: maximumReplyByteCount, maximumValueByteCount: maximumReplyByteCount))
        } catch {
            throw .invalidValue(
                InvalidValueError(
                    field: "RedisConfiguration.maximumReplyByteCount", value: "\(maximumReplyByteCount)",
                    requirement: error.requirement))
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(closing: false) { .connectionClosed(command: $0, underlying: nil) }
        self.context = nil
    }

    /// Writes `request` and records it as the newest command in flight; the commands submitted
    /// in one turn of the loop are flushed together at its end. A request submitted after the
    /// connection failed, or once the handler is gone, fails at once.
    ///
    /// - Complexity: O(1), beside the bytes' copy into the socket.
    func submit(_ request: Request) {
        guard failure == nil, let context else {
            let error = failure.map { Self.error(for: request.commandName, after: $0) }
            request.completion.fail(error ?? .connectionClosed(command: request.commandName, underlying: nil))
            return
        }
        let identifier = nextIdentifier
        nextIdentifier += 1
        let deadline = NIODeadline.now() + TimeAmount(commandTimeout)
        let entry = Pending(
            identifier: identifier, command: request.command, completion: request.completion, deadline: deadline)
        pending.append(entry)
        if deadlineTimer == nil { armDeadlineTimer(for: deadline, on: context.eventLoop) }
        // A failed write closes the channel, which fails every command in flight.
        context.write(NIOAny(request.bytes), promise: nil)
        if !flushScheduled {
            flushScheduled = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute {
                handler.value.flushScheduled = false
                handler.value.context?.flush()
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard failure == nil else { return }
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { parser.append($0) }
        while failure == nil {
            let reply: RESPValue
            do throws(RESPParseError) {
                guard let next = try parser.next() else { return }
                reply = next
            } catch {
                let maximum = maximumReplyByteCount
                fail { command in
                    switch error.reason {
                    case .bulkStringTooLong, .valueTooLarge: .replyTooLarge(command: command, maximum: maximum)
                    default: .protocolError(command: command, error)
                    }
                }
                return
            }
            guard let entry = pending.popFirst() else {
                // A reply nobody asked for: the replies and the commands are out of step.
                fail { _ in .unexpectedReply(command: "no command", expected: "no reply", received: reply.summary) }
                return
            }
            entry.completion.succeed(reply)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail { .connectionClosed(command: $0, underlying: nil) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let host = self.host
        let port = self.port
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            fail { _ in .tlsFailed(host: host, port: port, underlying: error) }
        } else {
            fail { .connectionClosed(command: $0, underlying: error) }
        }
    }

    /// Schedules the connection's timer for `deadline`.
    private func armDeadlineTimer(for deadline: NIODeadline, on eventLoop: any EventLoop) {
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        deadlineTimer = eventLoop.scheduleTask(deadline: deadline) { handler.value.deadlineTimerFired(on: eventLoop) }
    }

    /// Fails every command in flight when the oldest one's deadline has passed before its
    /// reply; else waits for that deadline (the command the timer was set for was answered).
    private func deadlineTimerFired(on eventLoop: any EventLoop) {
        deadlineTimer = nil
        guard let oldest = pending.first else { return }
        guard oldest.deadline <= .now() else { return armDeadlineTimer(for: oldest.deadline, on: eventLoop) }
        let timeout = commandTimeout
        fail(first: oldest.identifier) { .timedOut(command: $0, timeout: timeout) }
    }

    /// Records the first failure, marks the connection unusable, fails every command in flight
    /// and closes the channel.
    ///
    /// - Parameters:
    ///   - first: The command that failed; by default the oldest in flight.
    ///   - closing: Whether to close the channel (not while the handler is being removed).
    ///   - makeError: The error for a command's name: what the failed command gets, and the cause
    ///     the others are given.
    private func fail(first: UInt64? = nil, closing: Bool = true, _ makeError: (String) -> RedisClientError) {
        let firstEntry = first.flatMap { identifier in pending.first { $0.identifier == identifier } } ?? pending.first
        let cause = makeError(firstEntry?.commandName ?? "a command")
        if failure == nil {
            failure = cause
            failureBox.withLockedValue { $0 = $0 ?? cause }
        }
        let entries = pending
        pending.removeAll()
        deadlineTimer?.cancel()
        deadlineTimer = nil
        for entry in entries {
            if entry.identifier == firstEntry?.identifier {
                entry.completion.fail(cause)
            } else {
                entry.completion.fail(Self.error(for: entry.commandName, after: cause))
            }
        }
        if closing { context?.close(promise: nil) }
    }

    /// The error for `command`, in flight or written after `cause` broke the connection: the
    /// cause itself when it concerns the connection as a whole (TLS, closed by the peer), else
    /// ``RedisClientError/connectionClosed(command:underlying:)`` with the cause.
    static func error(for command: String, after cause: RedisClientError) -> RedisClientError {
        switch cause {
        case .tlsFailed: cause
        case .connectionClosed(_, nil): .connectionClosed(command: command, underlying: nil)
        default: .connectionClosed(command: command, underlying: cause)
        }
    }
}
