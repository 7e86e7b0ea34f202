import HoardSystem

/// Where a Redis server is and how to talk to it: address, database, credentials, TLS, deadlines
/// and the largest reply accepted.
///
/// Made field by field or from a `redis://` / `rediss://` URL (``init(url:)``). ``validate()``
/// checks every field; ``NIORedisClient`` calls it before using a configuration.
///
/// ```swift
/// var configuration = try RedisConfiguration(url: "rediss://cache.internal:6380/2")
/// configuration.password = environment["REDIS_PASSWORD"]
/// configuration.commandTimeout = .milliseconds(250)
/// let client = try NIORedisClient(configuration: configuration)
/// ```
///
/// The password is never part of the configuration's description, its debug description or its
/// mirror: printing or dumping a configuration shows `***` in its place.
public struct RedisConfiguration: Sendable, Hashable {
    /// How to check the server's certificate.
    public struct TLS: Sendable, Hashable {
        /// The certificate authorities trusted to sign the server's certificate.
        public enum TrustRoots: Sendable, Hashable {
            /// The operating system's trust store.
            case system
            /// The PEM certificates in the file at `path` (and only those): for a private CA or
            /// a self-signed certificate.
            case certificateFile(path: String)
        }

        /// The certificate authorities trusted; ``TrustRoots/system`` by default.
        public var trustRoots: TrustRoots
        /// The name the server's certificate must carry, also sent as SNI; `nil` for the host.
        public var serverName: String?

        /// TLS trusting `trustRoots`, checking the certificate against `serverName`.
        ///
        /// ```swift
        /// let tls = RedisConfiguration.TLS(trustRoots: .certificateFile(path: "/etc/redis/ca.pem"))
        /// ```
        ///
        /// - Parameters:
        ///   - trustRoots: The trusted certificate authorities.
        ///   - serverName: The name to verify and send as SNI; `nil` for the configuration's host.
        /// - Complexity: O(1).
        public init(trustRoots: TrustRoots = .system, serverName: String? = nil) {
            self.trustRoots = trustRoots
            self.serverName = serverName
        }
    }

    /// The server's host name or IP address (IPv6 without brackets).
    public var host: String
    /// The server's TCP port; 6379 by default.
    public var port: Int
    /// The database selected (`SELECT`) on every new connection; 0 by default.
    public var database: Int
    /// The ACL user name for `AUTH`; `nil` for the default user. Needs a ``password``.
    public var username: String?
    /// The password for `AUTH`; `nil` when the server requires none. Never printed.
    public var password: String?
    /// TLS settings; `nil` for plain TCP.
    public var tls: TLS?
    /// The longest a new connection may take: TCP, TLS, `AUTH` and `SELECT`. 5 seconds by default.
    public var connectTimeout: Duration
    /// The longest any command may wait for its reply, once written. 5 seconds by default.
    public var commandTimeout: Duration
    /// The largest reply accepted, in bytes, headers included: a larger one fails with
    /// ``RedisClientError/replyTooLarge(command:maximum:)`` before it is read. 64 MiB by default;
    /// 1 KiB through 4 GiB.
    public var maximumReplyByteCount: Int

    /// A configuration with the given fields.
    ///
    /// ```swift
    /// let configuration = RedisConfiguration(host: "127.0.0.1", port: 6379, database: 1)
    /// ```
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address.
    ///   - port: Its TCP port.
    ///   - database: The database to select.
    ///   - username: The ACL user, or `nil`.
    ///   - password: The password, or `nil`.
    ///   - tls: TLS settings, or `nil` for plain TCP.
    ///   - connectTimeout: The longest a connection may take.
    ///   - commandTimeout: The longest a command may wait for its reply.
    ///   - maximumReplyByteCount: The largest reply accepted.
    /// - Complexity: O(1). Nothing is checked until ``validate()``.
    public init(
        host: String = "127.0.0.1", port: Int = 6379, database: Int = 0, username: String? = nil,
        password: String? = nil, tls: TLS? = nil, connectTimeout: Duration = .seconds(5),
        commandTimeout: Duration = .seconds(5), maximumReplyByteCount: Int = 64 << 20
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.maximumReplyByteCount = maximumReplyByteCount
    }

    /// Checks every field.
    ///
    /// ```swift
    /// var configuration = RedisConfiguration(host: "localhost")
    /// configuration.port = 0
    /// try configuration.validate()  // throws: RedisConfiguration.port must be between 1 and 65535, got 0
    /// ```
    ///
    /// - Throws: ``RedisClientError/invalidValue(_:)`` naming the first
    ///   field that cannot be used: an empty host or one with spaces or control characters, a
    ///   port outside 1...65535, a negative database, an empty user name or one without a
    ///   password, a timeout that is not positive, a maximum reply size under 1 KiB, an empty
    ///   TLS server name or certificate path. The password itself is never shown.
    /// - Complexity: O(n) in the length of the host name.
    public func validate() throws(RedisClientError) {
        func refuse(_ field: String, _ value: String, _ requirement: String) -> RedisClientError {
            .invalidValue(InvalidValueError(field: "RedisConfiguration.\(field)", value: value, requirement: requirement))
        }
        guard !host.isEmpty, !host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
        else { throw refuse("host", "'\(host)'", "a host name or IP address without spaces") }
        guard (1...65535).contains(port) else { throw refuse("port", "\(port)", "between 1 and 65535") }
        guard database >= 0 else { throw refuse("database", "\(database)", "at least 0") }
        if let username {
            guard !username.isEmpty else { throw refuse("username", "''", "a non-empty user name or nil") }
            guard password != nil else { throw refuse("password", "nil", "set when a username is (AUTH needs both)") }
        }
        guard connectTimeout > .zero else { throw refuse("connectTimeout", "\(connectTimeout)", "positive") }
        guard commandTimeout > .zero else { throw refuse("commandTimeout", "\(commandTimeout)", "positive") }
        guard (1024...(1 << 32)).contains(maximumReplyByteCount) else {
            throw refuse("maximumReplyByteCount", "\(maximumReplyByteCount)", "between 1024 and \(1 << 32)")
        }
        if let tls {
            if let serverName = tls.serverName, serverName.isEmpty {
                throw refuse("tls.serverName", "''", "a non-empty name or nil")
            }
            if case .certificateFile(let path) = tls.trustRoots, path.isEmpty {
                throw refuse("tls.trustRoots", "certificateFile(path: '')", "a certificate file path")
            }
        }
    }
}

extension RedisConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    /// The configuration as a URL with the password replaced by `***`, then the settings a URL
    /// does not hold: `"rediss://cache:***@10.0.0.5:6380/2 (connect timeout 5.0 seconds, ...)"`.
    public var description: String {
        var text = redactedURL
        text += " (connect timeout \(connectTimeout), command timeout \(commandTimeout)"
        text += ", maximum reply \(maximumReplyByteCount) bytes"
        if let tls {
            switch tls.trustRoots {
            case .system: text += ", system trust roots"
            case .certificateFile(let path): text += ", trusting \(path)"
            }
            if let serverName = tls.serverName { text += ", server name \(serverName)" }
        }
        return text + ")"
    }

    /// The same as ``description``: the password is never shown.
    public var debugDescription: String { description }

    /// `redis://` or `rediss://`, the user, `***` for a password, the host, port and database.
    var redactedURL: String {
        var text = tls == nil ? "redis://" : "rediss://"
        if username != nil || password != nil {
            text += username ?? ""
            if password != nil { text += ":***" }
            text += "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        return text + ":\(port)/\(database)"
    }
}

extension RedisConfiguration: CustomReflectable {
    /// The fields, with `password` as `"***"` when set: what `dump` and debuggers show.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "database": database, "username": username as Any,
                "password": (password == nil ? "nil" : "***") as Any, "tls": tls as Any,
                "connectTimeout": connectTimeout, "commandTimeout": commandTimeout,
                "maximumReplyByteCount": maximumReplyByteCount,
            ], displayStyle: .struct)
    }
}
