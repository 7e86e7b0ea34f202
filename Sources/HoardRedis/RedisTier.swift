import Foundation
import HoardCore
import HoardRESP
import HoardSystem
import Logging

/// A ``CacheTier`` on Redis (6.2 or later) or Valkey, shared by every machine that uses the same
/// servers and namespace: put it after the disk, and a value one worker fetched is a hit for all.
///
/// ```swift
/// let redis = try RedisTier(configuration: .init(urls: ["redis://cache.internal:6379"], namespace: "thumbnails"))
/// var configuration = Hoard.Configuration(name: "thumbnails")
/// configuration.tiers = [.disk, .custom(redis)]
/// let hoard = try Hoard(configuration: configuration)
/// ```
///
/// - **Values** are self-checking records, the disk entry's format (type, dates, CRC-32C
///   checksums, the full key): a damaged, misplaced or foreign value is a miss, removed and
///   logged. A key is `hoard:v1:<namespace>:{<SHA-256 of the key, hex>}`; the braces are a hash
///   tag, so a value and its lease (`...}:lease`) share a Redis Cluster slot. An expiry becomes
///   `PXAT`; a value that never expires gets no TTL and is left to the server's eviction policy.
///   Records over ``Configuration/maximumValueByteCount`` stay local.
/// - **One fetch across machines** and **cache-wide marks**: see ``SharedCacheTier``; the marks
///   are the keys `hoard:v1:<namespace>:expired-before` and `...:removed-before` (Unix
///   milliseconds), written on every server.
/// - **Failure.** Every connection and command has a deadline. A server that fails
///   ``Configuration/failureThreshold`` times in a row is skipped (reads miss, writes are
///   dropped) and probed with `PING` after a back-off; each change is logged once and counted in
///   ``statistics``. Nothing is thrown to the caller and no local data is touched.
/// - **Several servers** share the keys by rendezvous hashing: losing one loses only its share.
///
/// Call ``checkReachable()`` at start when the shared cache is required, and ``shutdown()``
/// before the process exits.
public final class RedisTier: SharedCacheTier {
    /// The settings, validated.
    public let configuration: Configuration
    /// The tier's name (``Configuration/identifier``).
    public var identifier: CacheTierIdentifier { configuration.identifier }

    let shards: [RedisShard]
    let hashing: RendezvousHashing
    let counters = RedisTierCounters()
    let logger: Logger
    /// `hoard:v1:<namespace>:`.
    let keyPrefix: String
    /// The same, as the bytes every value's key starts with.
    private let keyPrefixBytes: [UInt8]
    /// The marks last read, and when, and what was made of marks that lay in the future.
    let marks = Lock(MarkState())
    private let closers: [@Sendable () async -> Void]

    /// The executor of the event loop the tier's connections run on.
    ///
    /// A task that prefers it runs its commands without leaving that thread: the command is
    /// written and the reply resumes the task there, as a C client's event loop does, instead of
    /// handing over to the loop and back to Swift's global pool on every command (two thread
    /// wake-ups). Worth it for a task that calls the tier many times in a row and does little
    /// else; work that blocks (files, decoding) does not belong on it, since it delays every
    /// connection of the tier.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(redis.taskExecutor) {
    ///     for key in keys { _ = try await redis.entry(forKey: key) }
    /// }
    /// ```
    public let taskExecutor: any TaskExecutor

    /// A tier on the servers `configuration` lists; nothing is connected until the first command.
    ///
    /// - Throws: ``RedisTierError/invalidValue(_:)`` for a field it cannot
    ///   use; ``RedisTierError/client(_:)`` when a server's settings cannot be loaded (a TLS
    ///   certificate file).
    public init(configuration: Configuration) throws(RedisTierError) {
        try configuration.validate()
        self.configuration = configuration
        logger = configuration.logger
        keyPrefix = "hoard:v1:\(configuration.namespace):"
        keyPrefixBytes = Array(keyPrefix.utf8)
        let (clients, taskExecutor) = try Self.makeClients(configuration.servers)
        self.taskExecutor = taskExecutor
        closers = clients.map(\.close)
        var shards: [RedisShard] = []
        for (server, made) in zip(configuration.servers, clients) {
            shards.append(
                RedisShard(
                    name: "\(server.host):\(server.port)/\(server.database)", client: made.client,
                    breaker: CircuitBreaker(
                        threshold: configuration.failureThreshold, initialBackOff: configuration.retryInterval,
                        maximumBackOff: configuration.maximumRetryInterval),
                    counters: counters, logger: configuration.logger))
        }
        self.shards = shards
        hashing = RendezvousHashing(serverNames: shards.map(\.name))
    }

    /// The counters so far.
    public var statistics: RedisTierStatistics { counters.snapshot }

    /// Checks that every server answers `PING` now: for a program that must not run without
    /// the shared cache (the tool's `--remote-required`).
    ///
    /// - Throws: ``RedisTierError/unreachable(server:underlying:)`` for the first server that
    ///   does not answer within its deadlines.
    public func checkReachable() async throws(RedisTierError) {
        for shard in shards {
            do {
                try await shard.client.ping()
            } catch {
                throw .unreachable(server: shard.name, underlying: error)
            }
        }
    }

    /// Closes the connections. The tier must not be used afterwards.
    public func shutdown() async {
        for close in closers { await close() }
    }

    // MARK: - CacheTier

    /// The intact record under `key`, or `nil`: none, damaged (then removed and logged), stored
    /// before another machine's ``Hoard/removeAll()``, or its server unreachable.
    public func entry(forKey key: String) async throws -> CacheTierEntry? {
        guard let (shard, redisKey) = location(forKey: key),
            let stored = await shard.run("GET", { try await Self.storedBytes(redisKey, client: $0) })
        else {
            counters.count { $0.misses += 1 }
            return nil
        }
        let decoded: Result<CacheTierEntry, CacheRecord.Damage>
        switch stored {
        case .missing:
            counters.count { $0.misses += 1 }
            return nil
        case .otherType:
            decoded = .failure(.header("a Redis value of another type than a string"))
        case .bytes(let bytes):
            decoded = CacheRecord.decode(bytes, forKey: key)
        }
        let entry: CacheTierEntry
        switch decoded {
        case .success(let found):
            entry = found
        case .failure(let damage):
            counters.count {
                $0.damagedValues += 1
                $0.misses += 1
            }
            logger.warning(
                "Removed a damaged value from Redis",
                metadata: ["key": .string(key), "server": .string(shard.name), "reason": .string("\(damage)")])
            // Only the value read: a good one another machine stored since stays.
            let found: [RESPArgument] =
                if case .bytes(let bytes) = stored { ["string", RESPArgument(bytes)] } else { ["other"] }
            _ = await shard.run("EVALSHA") {
                try await $0.eval(Self.deleteIfUnchanged, keys: [redisKey], arguments: found)
            }
            return nil
        }
        if let removedBefore = await sharedMarks()?.removedBefore, entry.createdAt < removedBefore {
            counters.count { $0.misses += 1 }
            _ = await shard.run("DEL") { try await $0.delete([redisKey]) }
            return nil
        }
        counters.count { $0.hits += 1 }
        return entry
    }

    /// Stores `entry` with `PXAT` at its expiry (no TTL when it never expires); an entry already
    /// expired, or over the maximum size, removes the key's value instead. Dropped (logged,
    /// counted) when the server fails.
    public func store(_ entry: CacheTierEntry, forKey key: String) async throws {
        guard let (shard, redisKey) = location(forKey: key) else { return dropWrite() }
        guard let record = CacheRecord.encode(entry, forKey: key), record.count <= configuration.maximumValueByteCount
        else {
            counters.count { $0.oversizedValues += 1 }
            // An older, smaller value must not outlive this one on the other machines.
            _ = await shard.run("DEL") { try await $0.delete([redisKey]) }
            return dropWrite()
        }
        var expiration: RedisExpiration?
        // An expiry past what PXAT takes (year 287,000 and later) is kept without a TTL: the
        // record's own date still says when it expires.
        if let expiresAt = entry.expiresAt, expiresAt.timeIntervalSince1970 * 1000 < Self.latestUnixMilliseconds {
            guard let milliseconds = Self.unixMilliseconds(expiresAt),
                milliseconds > Self.unixMilliseconds(configuration.now()) ?? 0
            else {
                _ = await shard.run("DEL") { try await $0.delete([redisKey]) }
                return
            }
            expiration = .at(unixTimeMilliseconds: milliseconds)
        }
        let stored = await shard.run("SET") { try await $0.set(redisKey, to: record, expiration: expiration) }
        if stored == nil { return dropWrite() }
        counters.count { $0.stores += 1 }
    }

    /// Removes the key's value (skipped when its server fails).
    public func remove(forKey key: String) async throws {
        guard let (shard, redisKey) = location(forKey: key) else { return }
        _ = await shard.run("DEL") { try await $0.delete([redisKey]) }
    }

    /// Publishes a removal mark for every machine, then deletes every value and lease of the
    /// namespace (`SCAN` and `UNLINK`, a page at a time) on every reachable server.
    public func removeAll() async throws {
        await publishMark(.removedBefore, date: configuration.now())
        for shard in shards {
            _ = await forEachPage(on: shard, matching: keyPrefix + "{*") { keys in
                _ = await shard.run("UNLINK") { try await $0.unlink(keys.map(RESPArgument.init)) }
            }
        }
    }

    /// Removes every value that `shouldRemove` picks by its key and the first bytes of its value;
    /// values on unreachable servers stay.
    ///
    /// - Complexity: A `SCAN` of the namespace and a `GET` of each value.
    public func removeEntries(
        where shouldRemove: @escaping @Sendable (_ key: String, _ bytesPrefix: ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] {
        await removeRecords { key, entry in shouldRemove(key, ArraySlice(entry.bytes.prefix(16 << 10))) }
    }

    /// Removes every value created before `date` on every reachable server.
    ///
    /// - Complexity: A `SCAN` of the namespace and a `GET` of each value.
    public func removeEntries(createdBefore date: Date) async throws {
        _ = await removeRecords { _, entry in entry.createdAt < date }
    }

    // MARK: - Internals

    /// Deletes every intact record that `shouldRemove` picks, on every reachable server.
    ///
    /// - Returns: The keys of the deleted records.
    func removeRecords(where shouldRemove: (_ key: String, CacheTierEntry) -> Bool) async -> [String] {
        var removed: [String] = []
        for shard in shards {
            _ = await forEachPage(on: shard, matching: keyPrefix + "{*}") { redisKeys in
                for redisKey in redisKeys {
                    guard
                        case .bytes(let bytes)? = await shard.run(
                            "GET", { try await Self.storedBytes(RESPArgument(redisKey), client: $0) }),
                        let key = CacheRecord.key(of: bytes),
                        case .success(let entry) = CacheRecord.decode(bytes, forKey: key),
                        shouldRemove(key, entry)
                    else { continue }
                    if await shard.run("DEL", { try await $0.delete([RESPArgument(redisKey)]) }) == 1 {
                        removed.append(key)
                    }
                }
            }
        }
        return removed
    }

    /// The server and Redis key for `key`; `nil` only when SHA-256 fails (logged).
    func location(forKey key: String, suffix: String = "") -> (RedisShard, RESPArgument)? {
        guard let digest = SHA256.hash(Array(key.utf8)) else {
            logger.error("SHA-256 failed; the Redis tier skips this key", metadata: ["key": .string(key)])
            return nil
        }
        let shard = shards[hashing.server(forDigest: digest)]
        var redisKey = keyPrefixBytes
        redisKey.reserveCapacity(keyPrefixBytes.count + 66 + suffix.utf8.count)
        redisKey.append(UInt8(ascii: "{"))
        SHA256.appendHex(digest, to: &redisKey)
        redisKey.append(UInt8(ascii: "}"))
        redisKey.append(contentsOf: suffix.utf8)
        return (shard, RESPArgument(redisKey))
    }

    /// Calls `body` with each page of keys matching `pattern` on `shard`.
    ///
    /// - Returns: Whether the scan finished (`false` when the server failed part-way).
    func forEachPage(
        on shard: RedisShard, matching pattern: String, _ body: ([[UInt8]]) async -> Void
    ) async -> Bool {
        var cursor: UInt64 = 0
        repeat {
            guard
                let page = await shard.run("SCAN", { try await $0.scan(cursor: cursor, matching: pattern, count: 500) })
            else { return false }
            if !page.keys.isEmpty { await body(page.keys) }
            cursor = page.cursor
        } while cursor != 0
        return true
    }

    /// Deletes a value only if it is still what was read: the string `ARGV[2]` when `ARGV[1]` is
    /// `string`, any value of another type when it is `other`. A damaged value goes; a good one
    /// another machine stored meanwhile stays.
    static let deleteIfUnchanged = RedisScript(
        """
        local kind = redis.call('TYPE', KEYS[1]).ok
        if ARGV[1] == 'other' and kind ~= 'string' and kind ~= 'none' then return redis.call('DEL', KEYS[1]) end
        if ARGV[1] == 'string' and kind == 'string' and redis.call('GET', KEYS[1]) == ARGV[2] then
            return redis.call('DEL', KEYS[1])
        end
        return 0
        """)

    /// What a `GET` found.
    enum StoredBytes: Sendable {
        case bytes([UInt8])
        case missing
        /// A list, hash or other non-string value (`WRONGTYPE`): not ours.
        case otherType
    }

    /// `GET key`, with a value of another Redis type as ``StoredBytes/otherType`` rather than
    /// an error (it says nothing about the server's health).
    static func storedBytes(_ key: RESPArgument, client: any RedisCommandExecuting) async throws -> StoredBytes {
        let bytes: [UInt8]?
        do {
            bytes = try await client.get(key)
        } catch {
            if error.serverErrorCode == "WRONGTYPE" { return .otherType }
            throw error
        }
        guard let bytes else { return .missing }
        return .bytes(bytes)
    }

    /// Milliseconds since 1970 for `date`, or `nil` for a date outside what `PXAT` takes.
    /// Expiries round up (a value never expires early), marks down (a mark never covers a value
    /// stored after it).
    static func unixMilliseconds(_ date: Date, rounding: FloatingPointRoundingRule = .up) -> Int64? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(rounding)
        guard milliseconds.isFinite, milliseconds >= 1, milliseconds < latestUnixMilliseconds else { return nil }
        return Int64(milliseconds)
    }

    /// The first moment, in milliseconds since 1970, that ``unixMilliseconds(_:rounding:)`` does
    /// not give: below it, times are exact in Redis and its Lua.
    static let latestUnixMilliseconds = 9.0e15

    private func dropWrite() {
        counters.count { $0.droppedWrites += 1 }
    }
}
