// NIOFloor: the fastest a Redis client on SwiftNIO can go on this machine, as a floor for the
// Redis tier's rows. One connection, one channel handler that does nothing but write a batch of
// pre-encoded commands and count the bytes of their replies (each reply's length is known in
// advance), sending the next batch when the last one's replies are all in, as
// `redis-benchmark -c 1 -P DEPTH` does. No parsing, no promise, no task: whatever a real client
// adds on SwiftNIO comes on top of this.
//
// With `--tasks`, DEPTH Swift tasks on the loop's executor (as `HoardMeasure redis-tier
// --on-loop` runs its callers) each send a command and await its reply through a continuation
// that the handler resumes, with one flush per turn of the loop: what an async client on SwiftNIO
// costs at the least, before any parsing, record or error handling of its own.
//
// With `--client`, the same tasks call HoardRESP's `NIORedisClient.send` instead: the client
// without the tier (no key hashing, record, breaker or counters).
//
//   NIOFloor PORT get|set SIZE DEPTH SECONDS [--tasks | --client]
//
// The key is redis-benchmark's own (`key:__rand_int__`, unexpanded without -r), so a GET reads
// the value its SET wrote; a GET run first stores a SIZE-byte value there. Prints
// "NIOFloor <op> <size> B depth <depth>: <n> ops/s".
import Foundation
import HoardRESP
import NIOCore
import NIOPosix

/// The handler: writes `depth` copies of `command`, waits for `depth * replyLength` bytes, again.
final class FloorHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let batch: ByteBuffer
    private let batchReplyLength: Int
    private let deadline: NIODeadline
    private let done: EventLoopPromise<Int>
    private var received = 0
    private var completed = 0

    init(command: ByteBuffer, replyLength: Int, depth: Int, seconds: Double, done: EventLoopPromise<Int>) {
        var batch = ByteBuffer()
        for _ in 0..<depth { batch.writeImmutableBuffer(command) }
        self.batch = batch
        batchReplyLength = replyLength * depth
        deadline = .now() + .nanoseconds(Int64(seconds * 1e9))
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(batch), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        guard received >= batchReplyLength else { return }
        precondition(received == batchReplyLength, "replies longer than expected")
        received = 0
        completed += 1
        if NIODeadline.now() >= deadline {
            done.succeed(completed)
            context.close(promise: nil)
        } else {
            context.writeAndFlush(NIOAny(batch), promise: nil)
        }
    }
}

/// The handler of `--tasks`: each command written by a task on the loop, its reply's bytes
/// counted, and the oldest waiting task resumed per reply.
final class TaskFloorHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let replyLength: Int
    private var waiting = CircularBuffer<UnsafeContinuation<Void, Never>>()
    private var received = 0
    private var flushScheduled = false
    private var context: ChannelHandlerContext?

    init(replyLength: Int) { self.replyLength = replyLength }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    /// Writes `command` (on the loop), flushed once at the end of this turn; returns when its reply is in.
    func send(_ command: ByteBuffer) async {
        await withUnsafeContinuation { continuation in
            guard let context else { return continuation.resume() }
            context.eventLoop.preconditionInEventLoop()
            waiting.append(continuation)
            context.write(NIOAny(command), promise: nil)
            if !flushScheduled {
                flushScheduled = true
                context.eventLoop.execute {
                    self.flushScheduled = false
                    context.flush()
                }
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        while received >= replyLength, let continuation = waiting.popFirst() {
            received -= replyLength
            continuation.resume()
        }
    }
}

func runTasks(port: Int, command: ByteBuffer, replyLength: Int, tasks: Int, seconds: Double) async throws -> Int {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let handler = TaskFloorHandler(replyLength: replyLength)
    _ = try await ClientBootstrap(group: loop)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { $0.pipeline.addHandler(handler) }
        .connect(host: "127.0.0.1", port: port).get()
    let executor = EventLoopTaskExecutor(eventLoop: loop)
    let deadline = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
    return await withTaskGroup(of: Int.self) { group in
        for _ in 0..<tasks {
            group.addTask(executorPreference: executor) {
                var count = 0
                while ContinuousClock.now < deadline {
                    await handler.send(command)
                    count += 1
                }
                return count
            }
        }
        return await group.reduce(0, +)
    }
}

func runClient(port: Int, command: [RESPArgument], tasks: Int, seconds: Double) async throws -> Int {
    let client = try NIORedisClient(configuration: RedisConfiguration(port: port))
    _ = try await client.send(["PING"])
    let deadline = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
    let count = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<tasks {
            group.addTask(executorPreference: client.taskExecutor) {
                var count = 0
                while ContinuousClock.now < deadline {
                    _ = try await client.send(command)
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    await client.close()
    return count
}

func encode(_ command: [RESPArgument]) -> ByteBuffer {
    ByteBuffer(bytes: RESPEncoder.encodeCommand(command))
}

func run(port: Int, command: ByteBuffer, replyLength: Int, depth: Int, seconds: Double) throws -> Int {
    let group = MultiThreadedEventLoopGroup.singleton
    let done = group.next().makePromise(of: Int.self)
    let handler = FloorHandler(command: command, replyLength: replyLength, depth: depth, seconds: seconds, done: done)
    _ = try ClientBootstrap(group: done.futureResult.eventLoop)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { $0.pipeline.addHandler(handler) }
        .connect(host: "127.0.0.1", port: port).wait()
    return try done.futureResult.wait()
}

let arguments = CommandLine.arguments
let mode = arguments.last.flatMap { ["--tasks", "--client"].contains($0) ? $0 : nil }
let tasks = mode == "--tasks"
let positional = mode == nil ? arguments : Array(arguments.dropLast())
guard positional.count == 6, let port = Int(arguments[1]), (1...65535).contains(port),
    ["get", "set"].contains(positional[2]), let size = Int(positional[3]), (1...(64 << 20)).contains(size),
    let depth = Int(positional[4]), (1...1024).contains(depth),
    let seconds = Double(positional[5]), seconds.isFinite, seconds > 0, seconds <= 3600
else {
    FileHandle.standardError.write(Data("usage: NIOFloor PORT get|set SIZE DEPTH SECONDS [--tasks | --client]\n".utf8))
    exit(2)
}
let key = Array("key:__rand_int__".utf8)
let value = [UInt8](repeating: UInt8(ascii: "x"), count: size)
let set = encode(["SET", RESPArgument(key), RESPArgument(value)])
let isSet = positional[2] == "set"
if !isSet { _ = try run(port: port, command: set, replyLength: 5, depth: 1, seconds: 0.000_001) }
let words: [RESPArgument] =
    isSet ? ["SET", RESPArgument(key), RESPArgument(value)] : ["GET", RESPArgument(key)]
let command = encode(words)
let replyLength = isSet ? 5 : "$\(size)\r\n".utf8.count + size + 2  // +OK\r\n, or $<size>\r\n<value>\r\n
let operations =
    mode == "--client"
    ? try await runClient(port: port, command: words, tasks: depth, seconds: seconds)
    : tasks
        ? try await runTasks(port: port, command: command, replyLength: replyLength, tasks: depth, seconds: seconds)
        : try run(port: port, command: command, replyLength: replyLength, depth: depth, seconds: seconds) * depth
print(
    "NIOFloor\(mode.map { " " + $0 } ?? "") \(positional[2]) \(size) B depth \(depth): "
        + "\(Int(Double(operations) / seconds)) ops/s")
