import Foundation
import HoardCore
import HoardRESP
import HoardSystem
import Logging

extension RedisTier {
    /// The settings of a ``RedisTier``: its servers, its namespace, what it keeps, and how it
    /// copes with a server that fails.
    ///
    /// ```swift
    /// var configuration = try RedisTier.Configuration(urls: ["redis://cache-1:6379", "redis://cache-2:6379"])
    /// configuration.namespace = "thumbnails"   // use the cache's name
    /// configuration.password = ProcessInfo.processInfo.environment["HOARD_REMOTE_PASSWORD"]
    /// ```
    public struct Configuration: Sendable {
        /// The servers; keys are spread over them by rendezvous hashing of the key's SHA-256, so
        /// every machine must list the same servers (in any order). At least one.
        public var servers: [RedisConfiguration]
        /// The prefix of every key, after `hoard:v1:`: machines share values only within one
        /// namespace. Letters, digits, `.`, `-`, `_`; default `"default"`, the default cache's
        /// name. Use the ``Hoard/Configuration/name`` of the cache the tier belongs to.
        public var namespace: String
        /// The tier's name in entries, events and statistics (default `"redis"`).
        public var identifier: CacheTierIdentifier
        /// The largest record stored, in bytes (default 8 MiB); larger values stay in the local
        /// tiers (and any older value of the key is removed from Redis). At most each server's
        /// ``RedisConfiguration/maximumReplyByteCount`` less 64 bytes, so that a `GET` of it can
        /// be read back.
        public var maximumValueByteCount: Int
        /// Consecutive failures of a server after which it is skipped (default 3).
        public var failureThreshold: Int
        /// How long a failing server is skipped before a `PING` probes it (default 1 second);
        /// doubles after each failed probe, up to ``maximumRetryInterval``.
        public var retryInterval: Duration
        /// The longest a failing server is skipped between probes (default 30 seconds).
        public var maximumRetryInterval: Duration
        /// How often the cache-wide marks (another machine's `expireAll()`/`removeAll()`) are
        /// read from the servers, at most (default 1 second).
        public var markRefreshInterval: Duration
        /// Where failures, changes of a server's state and damaged values are reported.
        public var logger: Logger
        /// The clock for the removal mark; tests inject their own.
        public var now: @Sendable () -> Date

        /// A configuration for `servers`.
        ///
        /// - Parameters:
        ///   - servers: The servers, with their credentials, TLS and deadlines.
        ///   - namespace: The key prefix (default `"default"`).
        public init(servers: [RedisConfiguration], namespace: String = "default") {
            self.servers = servers
            self.namespace = namespace
            identifier = "redis"
            maximumValueByteCount = 8 << 20
            failureThreshold = 3
            retryInterval = .seconds(1)
            maximumRetryInterval = .seconds(30)
            markRefreshInterval = .seconds(1)
            logger = Logger(label: "Hoard.redis")
            now = { Date() }
        }

        /// A configuration for the servers at `urls` (`redis://[user@]host[:port][/db]` or
        /// `rediss://` for TLS), each with `password` unless its URL has one.
        ///
        /// - Parameters:
        ///   - urls: The servers' URLs.
        ///   - namespace: The key prefix (default `"default"`).
        ///   - password: The password for `AUTH` (read it from the environment, never from a
        ///     command line), or `nil`.
        ///   - timeout: The deadline for connecting and for each command (default 2 seconds).
        /// - Throws: ``RedisClientError/invalidValue(_:)`` for a URL that does
        ///   not parse (shown without its credentials).
        public init(
            urls: [String], namespace: String = "default", password: String? = nil, timeout: Duration = .seconds(2)
        ) throws(RedisClientError) {
            var servers: [RedisConfiguration] = []
            for url in urls {
                var server = try RedisConfiguration(url: url)
                if server.password == nil { server.password = password }
                server.connectTimeout = timeout
                server.commandTimeout = timeout
                servers.append(server)
            }
            self.init(servers: servers, namespace: namespace)
        }

        /// Checks every field.
        ///
        /// - Throws: ``RedisTierError/invalidValue(_:)`` naming the field.
        func validate() throws(RedisTierError) {
            func refuse(_ field: String, _ value: String, _ requirement: String) -> RedisTierError {
                .invalidValue(
                    InvalidValueError(field: "RedisTier.Configuration.\(field)", value: value, requirement: requirement))
            }
            guard !servers.isEmpty else { throw refuse("servers", "[]", "at least one server") }
            for server in servers {
                do {
                    try server.validate()
                } catch {
                    throw .client(error)
                }
            }
            let allowed = namespace.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_.".unicodeScalars.contains($0)
            }
            guard !namespace.isEmpty, namespace.utf8.count <= 128, allowed else {
                throw refuse("namespace", namespace, "1-128 letters, digits, '.', '-' or '_'")
            }
            guard (1...(512 << 20)).contains(maximumValueByteCount) else {
                throw refuse("maximumValueByteCount", "\(maximumValueByteCount)", "between 1 and \(512 << 20)")
            }
            // A record the tier stores but cannot read back would fail every GET of its key, and
            // close the connection other commands share.
            if let server = servers.first(where: { maximumValueByteCount > $0.maximumReplyByteCount - 64 }) {
                throw refuse(
                    "maximumValueByteCount", "\(maximumValueByteCount)",
                    "at most the server's maximumReplyByteCount less 64 (\(server.maximumReplyByteCount - 64))")
            }
            guard (1...1000).contains(failureThreshold) else {
                throw refuse("failureThreshold", "\(failureThreshold)", "between 1 and 1000")
            }
            for (field, value) in [
                ("retryInterval", retryInterval), ("maximumRetryInterval", maximumRetryInterval),
                ("markRefreshInterval", markRefreshInterval),
            ] where value <= .zero || value > .seconds(86_400) {
                throw refuse(field, "\(value)", "more than 0 and at most 86400 seconds")
            }
            guard retryInterval <= maximumRetryInterval else {
                throw refuse("retryInterval", "\(retryInterval)", "at most maximumRetryInterval (\(maximumRetryInterval))")
            }
        }
    }
}
