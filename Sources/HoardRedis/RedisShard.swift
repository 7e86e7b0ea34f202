import HoardCore
import HoardRESP
import Logging

/// One Redis server of a ``RedisTier``: its client, its circuit breaker, and the counters they
/// feed. Every command goes through ``run(_:_:)``, which skips a failing server and logs each
/// change of its state once.
final class RedisShard: Sendable {
    /// The server's address without credentials (`host:port/db`): its name in logs and hashing.
    let name: String
    let client: any RedisCommandExecuting
    let breaker: CircuitBreaker
    let counters: RedisTierCounters
    let logger: Logger
    /// The refusals already logged, by command and error code: each is a warning once, then
    /// debug (a full server refuses every write alike).
    let loggedRefusals = OnceSet()

    init(
        name: String, client: any RedisCommandExecuting, breaker: CircuitBreaker, counters: RedisTierCounters,
        logger: Logger
    ) {
        self.name = name
        self.client = client
        self.breaker = breaker
        self.counters = counters
        self.logger = logger
    }

    /// The result of `body` on this server, or `nil` when the server is being skipped or
    /// `body` failed (logged and counted; a failure to be served, not a refusal of the command,
    /// also feeds the breaker). Never throws. When the breaker lets a probe through, the probe
    /// runs in the background and this command is skipped: a failing server costs a caller at
    /// most the one deadline that opened its breaker.
    ///
    /// - Parameters:
    ///   - command: What `body` does, for the log (`"GET"`).
    ///   - body: The commands.
    func run<Result: Sendable>(
        _ command: String, _ body: (any RedisCommandExecuting) async throws -> Result
    ) async -> Result? {
        switch breaker.permission() {
        case .refused:
            counters.count { $0.skippedCommands += 1 }
            return nil
        case .probe:
            // In the background: a caller never waits for a server that has been failing (a
            // paused one would hold it a whole deadline). This command skips it meanwhile.
            Task { await probe() }
            counters.count { $0.skippedCommands += 1 }
            return nil
        case .allowed:
            break
        }
        do {
            let result = try await body(client)
            breaker.recordCommandSuccess()
            return result
        } catch {
            counters.count { $0.errors += 1 }
            // A refusal of this command (a wrong type, a script error, a full server refusing a
            // write while it still serves reads) says nothing about whether the server answers:
            // only failures to be served feed the breaker.
            guard let clientError = error as? RedisClientError, clientError.isConnectionOrServerFailure,
                !clientError.isOutOfMemory
            else {
                let code = (error as? RedisClientError)?.serverErrorCode ?? "\(type(of: error))"
                let level: Logger.Level = loggedRefusals.insert("\(command) \(code)") ? .warning : .debug
                logger.log(
                    level: level, "Redis refused a command",
                    metadata: ["server": .string(name), "command": .string(command), "error": "\(error)"])
                return nil
            }
            if let backOff = breaker.recordFailure(opening: clientError.isMissedDeadline) {
                counters.count { $0.breakerOpenings += 1 }
                logger.warning(
                    "Redis server failing; using the local tiers only, probing it again in \(backOff)",
                    metadata: ["server": .string(name), "command": .string(command), "error": "\(error)"])
            } else if !breaker.isOpen {
                logger.debug(
                    "Redis command failed",
                    metadata: ["server": .string(name), "command": .string(command), "error": "\(error)"])
            }
            return nil
        }
    }
}

extension RedisShard {
    /// Asks the server whether it answers again (`PING`), and closes or re-opens the breaker.
    func probe() async {
        do {
            try await client.ping()
        } catch {
            counters.count { $0.errors += 1 }
            breaker.recordProbeFailure()
            logger.debug("Redis server still unreachable", metadata: ["server": .string(name), "error": "\(error)"])
            return
        }
        if breaker.recordSuccess() {
            logger.notice("Redis server reachable again; using it", metadata: ["server": .string(name)])
        }
    }
}

extension RedisClientError {
    /// Whether the server refused a write for want of memory (`OOM`, under `noeviction`).
    fileprivate var isOutOfMemory: Bool {
        if case .outOfMemory = self { true } else { false }
    }

    /// Whether the server did not answer in time (connecting, or a command): a paused or
    /// overloaded server, which opens the breaker at once rather than after a few more deadlines.
    fileprivate var isMissedDeadline: Bool {
        switch self {
        case .connectTimedOut, .timedOut: true
        case .connectionClosed(_, let underlying as RedisClientError): underlying.isMissedDeadline
        default: false
        }
    }
}
