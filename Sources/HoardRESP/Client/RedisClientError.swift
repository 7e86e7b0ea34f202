import HoardSystem

/// Why a Redis command, or the connection it needed, failed.
///
/// Every case carries what a log needs to act on it (the host and port, the command's name,
/// the deadline, the server's message), and nothing a log must not hold: descriptions never
/// contain the password, nor any command's arguments (they can be cached values), only the
/// command's name.
///
/// ```swift
/// do {
///     _ = try await client.get("thumbnails:42")
/// } catch .timedOut(let command, let timeout) {
///     print("\(command) took more than \(timeout)")
/// } catch .server(_, let message) {
///     print("Redis said: \(message)")
/// } catch {
///     print(error)
/// }
/// ```
///
/// What counts as a failure of the connection or the server, for a circuit breaker, is
/// ``isConnectionOrServerFailure``.
public enum RedisClientError: Error, Sendable {
    /// A value given by the caller cannot be used: a configuration field, a URL, a command's
    /// argument. The error's `value` is the value as text (a URL with its password replaced by
    /// `***`).
    case invalidValue(InvalidValueError)
    /// No TCP connection to `host`:`port` could be made (refused, unreachable, no such host).
    case connectFailed(host: String, port: Int, underlying: any Error)
    /// Connecting (TCP, TLS, `AUTH` and `SELECT`) took longer than `timeout`.
    case connectTimedOut(host: String, port: Int, timeout: Duration)
    /// The TLS handshake with `host`:`port` failed: an untrusted certificate, a name mismatch,
    /// no common protocol version, or a server that does not speak TLS.
    case tlsFailed(host: String, port: Int, underlying: any Error)
    /// No reply to `command` within `timeout`. The connection is closed (replies arriving
    /// later could not be told apart) and the next command reconnects.
    case timedOut(command: String, timeout: Duration)
    /// The connection closed before the reply to `command` arrived: the server went away, or the
    /// connection was closed because an earlier command on it failed (`underlying` says why).
    case connectionClosed(command: String, underlying: (any Error)?)
    /// The server refused the credentials (`WRONGPASS`, an error reply to `AUTH`), or requires
    /// some (`NOAUTH`). `message` is the server's; `user` the user name tried, if any.
    case authenticationFailed(user: String?, message: String)
    /// The server's reply to `command` is not valid RESP2; the connection is closed.
    case protocolError(command: String, RESPParseError)
    /// The reply to `command` is larger than the configured `maximum` bytes; the connection is
    /// closed without reading it.
    case replyTooLarge(command: String, maximum: Int)
    /// The server answered `command` with an error: `message` is the whole error line, starting
    /// with its code (`ERR`, `WRONGTYPE`, `NOSCRIPT`, `READONLY`, ...).
    case server(command: String, message: String)
    /// The server is out of memory (`OOM command not allowed when used memory > 'maxmemory'`):
    /// it refuses writes until memory is freed.
    case outOfMemory(command: String, message: String)
    /// The reply to `command` is valid but not of the kind the command returns: `received`
    /// describes its type and size (never its contents).
    case unexpectedReply(command: String, expected: String, received: String)
    /// The client was closed; it sends no more commands.
    case clientClosed
}

extension RedisClientError {
    /// The error for an error reply `message` to `command`: ``outOfMemory(command:message:)``
    /// for `OOM`, ``authenticationFailed(user:message:)`` for `NOAUTH` and `WRONGPASS`, else
    /// ``server(command:message:)``.
    ///
    /// For any implementation of ``RedisCommandExecuting``: a top-level error reply is thrown
    /// as the error this returns.
    ///
    /// ```swift
    /// let error = RedisClientError(serverErrorMessage: "OOM command not allowed", command: "SET")
    /// // .outOfMemory(command: "SET", message: "OOM command not allowed")
    /// ```
    ///
    /// - Parameters:
    ///   - message: The error reply's text, without the leading `-`.
    ///   - command: The name of the command it answers.
    /// - Complexity: O(n) in the length of the message's first word.
    public init(serverErrorMessage message: String, command: String) {
        let code = message.prefix { $0 != " " }
        switch code {
        case "OOM": self = .outOfMemory(command: command, message: message)
        case "NOAUTH", "WRONGPASS": self = .authenticationFailed(user: nil, message: message)
        default: self = .server(command: command, message: message)
        }
    }

    /// The error code of a ``server(command:message:)`` error: the first word of the message
    /// (`"ERR"`, `"NOSCRIPT"`, `"WRONGTYPE"`); `nil` for the other cases.
    ///
    /// ```swift
    /// if error.serverErrorCode == "NOSCRIPT" { ... }
    /// ```
    ///
    /// - Complexity: O(n) in the length of the first word.
    public var serverErrorCode: String? {
        guard case .server(_, let message) = self else { return nil }
        return String(message.prefix { $0 != " " })
    }

    /// Whether the error says the connection or the server failed, rather than the caller's
    /// request: what a circuit breaker counts.
    ///
    /// `true` for connecting, TLS, timeouts, closed connections, authentication, protocol errors,
    /// replies over the size limit, `OOM`, and the server errors that say the server cannot serve
    /// now (`LOADING`, `BUSY`, `MASTERDOWN`, `READONLY`, `TRYAGAIN`, `CLUSTERDOWN`, `NOREPLICAS`);
    /// `false` for ``invalidValue(_:)``, other server errors (a wrong
    /// command, `WRONGTYPE`, `NOSCRIPT`, a script error), ``unexpectedReply(command:expected:received:)``
    /// and ``clientClosed``.
    ///
    /// ```swift
    /// if error.isConnectionOrServerFailure { breaker.recordFailure() }
    /// ```
    ///
    /// - Complexity: O(1).
    public var isConnectionOrServerFailure: Bool {
        switch self {
        case .connectFailed, .connectTimedOut, .tlsFailed, .timedOut, .connectionClosed, .authenticationFailed,
            .protocolError, .replyTooLarge, .outOfMemory:
            true
        case .server:
            switch serverErrorCode {
            case "LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS": true
            default: false
            }
        case .invalidValue, .unexpectedReply, .clientClosed:
            false
        }
    }
}

extension RedisClientError: CustomStringConvertible {
    /// What failed, where and why, in one sentence; never the password or a command's arguments.
    public var description: String {
        switch self {
        case .invalidValue(let error):
            "\(error)"
        case .connectFailed(let host, let port, let underlying):
            "Cannot connect to Redis at \(Self.address(host, port)): \(underlying)"
        case .connectTimedOut(let host, let port, let timeout):
            "Connecting to Redis at \(Self.address(host, port)) took more than \(timeout)"
        case .tlsFailed(let host, let port, let underlying):
            "TLS with Redis at \(Self.address(host, port)) failed: \(underlying)"
        case .timedOut(let command, let timeout):
            "Redis did not answer \(command) within \(timeout); the connection was closed"
        case .connectionClosed(let command, let underlying?):
            "The Redis connection closed before the reply to \(command): \(underlying)"
        case .connectionClosed(let command, nil):
            "The Redis connection closed before the reply to \(command)"
        case .authenticationFailed(let user?, let message):
            "Redis authentication failed for user '\(user)': \(message)"
        case .authenticationFailed(nil, let message):
            "Redis authentication failed: \(message)"
        case .protocolError(let command, let error):
            "The Redis reply to \(command) is not valid RESP: \(error)"
        case .replyTooLarge(let command, let maximum):
            "The Redis reply to \(command) is larger than the maximum of \(maximum) bytes"
        case .server(let command, let message):
            "Redis refused \(command): \(message)"
        case .outOfMemory(let command, let message):
            "Redis is out of memory and refused \(command): \(message)"
        case .unexpectedReply(let command, let expected, let received):
            "Redis answered \(command) with \(received), expected \(expected)"
        case .clientClosed:
            "The Redis client is closed"
        }
    }

    private static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
