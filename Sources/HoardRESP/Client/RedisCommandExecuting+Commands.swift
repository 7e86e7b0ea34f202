import HoardSystem

/// The commands Hoard's Redis tier uses, typed: each sends one command with ``send(_:)`` and
/// checks the reply's type.
extension RedisCommandExecuting {
    /// `PING`: checks that the server answers.
    ///
    /// ```swift
    /// try await client.ping()
    /// ```
    ///
    /// - Throws: ``RedisClientError``; ``RedisClientError/unexpectedReply(command:expected:received:)``
    ///   for anything but `PONG`.
    /// - Complexity: One round trip.
    public func ping() async throws(RedisClientError) {
        let reply = try await send(["PING"])
        guard reply == .simpleString("PONG") else {
            throw .unexpectedReply(command: "PING", expected: "PONG", received: reply.summary)
        }
    }

    /// `GET key`: the key's value, or `nil` if the key does not exist.
    ///
    /// ```swift
    /// if let bytes = try await client.get("thumbnails:42") { use(bytes) }
    /// ```
    ///
    /// - Parameter key: The key.
    /// - Returns: The value's bytes, or `nil` for a missing key.
    /// - Throws: ``RedisClientError``; ``RedisClientError/server(command:message:)`` with
    ///   `WRONGTYPE` when the key holds something other than a string.
    /// - Complexity: One round trip.
    public func get(_ key: RESPArgument) async throws(RedisClientError) -> [UInt8]? {
        let reply = try await send(["GET", key])
        guard case .bulkString(let bytes) = reply else {
            throw .unexpectedReply(command: "GET", expected: "a bulk string", received: reply.summary)
        }
        return bytes
    }

    /// `SET key value [PX ms | PXAT unix-ms] [NX]`: stores `value` under `key`.
    ///
    /// ```swift
    /// let stored = try await client.set("lock:42", to: token, expiration: .after(milliseconds: 10_000), onlyIfAbsent: true)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The bytes to store (any bytes, up to the server's `proto-max-bulk-len`).
    ///   - expiration: When the key expires; `nil` for never (any earlier expiry is removed).
    ///   - onlyIfAbsent: Store only if the key does not exist (`NX`).
    /// - Returns: Whether the value was stored: always `true` without `onlyIfAbsent`; `false`
    ///   when `onlyIfAbsent` and the key exists.
    /// - Throws: ``RedisClientError/invalidValue(_:)`` for an expiration
    ///   below 1; ``RedisClientError/outOfMemory(command:message:)`` when the server is full;
    ///   any other ``RedisClientError``.
    /// - Complexity: One round trip.
    @discardableResult
    public func set(
        _ key: RESPArgument, to value: [UInt8], expiration: RedisExpiration? = nil, onlyIfAbsent: Bool = false
    ) async throws(RedisClientError) -> Bool {
        var command: [RESPArgument] = ["SET", key, RESPArgument(value)]
        switch expiration {
        case .after(let milliseconds)?:
            guard milliseconds >= 1 else {
                throw .invalidValue(
                    InvalidValueError(
                        field: "SET expiration", value: "after \(milliseconds) ms", requirement: "at least 1 ms"))
            }
            command += ["PX", RESPArgument(milliseconds)]
        case .at(let unixTimeMilliseconds)?:
            guard unixTimeMilliseconds >= 1 else {
                throw .invalidValue(
                    InvalidValueError(
                        field: "SET expiration", value: "at Unix time \(unixTimeMilliseconds) ms",
                        requirement: "at least 1"))
            }
            command += ["PXAT", RESPArgument(unixTimeMilliseconds)]
        case nil:
            break
        }
        if onlyIfAbsent { command.append("NX") }
        let reply = try await send(command)
        switch reply {
        case .simpleString("OK"): return true
        case .bulkString(nil) where onlyIfAbsent: return false
        default: throw .unexpectedReply(command: "SET", expected: "OK or null", received: reply.summary)
        }
    }

    /// `DEL key...`: deletes keys, freeing their memory before it returns.
    ///
    /// ```swift
    /// let deleted = try await client.delete(["a", "b"])
    /// ```
    ///
    /// - Parameter keys: The keys; none sends nothing and returns 0.
    /// - Returns: How many of the keys existed.
    /// - Throws: ``RedisClientError``.
    /// - Complexity: One round trip; the server's work is O(n) in the keys and their sizes.
    @discardableResult
    public func delete(_ keys: [RESPArgument]) async throws(RedisClientError) -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await integer(["DEL"] + keys, name: "DEL")
    }

    /// `UNLINK key...`: deletes keys, freeing their memory in the background (for large values).
    ///
    /// ```swift
    /// let unlinked = try await client.unlink(page.keys.map(RESPArgument.init))
    /// ```
    ///
    /// - Parameter keys: The keys; none sends nothing and returns 0.
    /// - Returns: How many of the keys existed.
    /// - Throws: ``RedisClientError``.
    /// - Complexity: One round trip; O(n) in the number of keys on the server.
    @discardableResult
    public func unlink(_ keys: [RESPArgument]) async throws(RedisClientError) -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await integer(["UNLINK"] + keys, name: "UNLINK")
    }

    /// `EVAL script numkeys key... arg...`: runs a Lua script atomically.
    ///
    /// ```swift
    /// let reply = try await client.eval("return redis.call('incr', KEYS[1])", keys: ["counter"])
    /// ```
    ///
    /// - Parameters:
    ///   - script: The Lua source.
    ///   - keys: The keys the script touches (`KEYS[1]...`).
    ///   - arguments: Its other arguments (`ARGV[1]...`).
    /// - Returns: The script's result as Redis converts it (a number becomes an integer, a
    ///   string a bulk string, a table an array, `false` a null bulk string).
    /// - Throws: ``RedisClientError``; ``RedisClientError/server(command:message:)`` for a
    ///   script error.
    /// - Complexity: One round trip, plus the script's run time.
    public func eval(
        _ script: String, keys: [RESPArgument] = [], arguments: [RESPArgument] = []
    ) async throws(RedisClientError) -> RESPValue {
        try await send(["EVAL", RESPArgument(script), RESPArgument(keys.count)] + keys + arguments)
    }

    /// `EVALSHA sha1 numkeys key... arg...`: runs a script the server has cached.
    ///
    /// ```swift
    /// let reply = try await client.evalSHA(script.sha1, keys: [key])
    /// ```
    ///
    /// - Parameters:
    ///   - sha1: The script's SHA-1 in hexadecimal, as `SCRIPT LOAD` returns it.
    ///   - keys: The keys the script touches.
    ///   - arguments: Its other arguments.
    /// - Returns: The script's result.
    /// - Throws: ``RedisClientError``; ``RedisClientError/server(command:message:)`` with code
    ///   `NOSCRIPT` when the server does not have the script.
    /// - Complexity: One round trip, plus the script's run time.
    public func evalSHA(
        _ sha1: String, keys: [RESPArgument] = [], arguments: [RESPArgument] = []
    ) async throws(RedisClientError) -> RESPValue {
        try await send(["EVALSHA", RESPArgument(sha1), RESPArgument(keys.count)] + keys + arguments)
    }

    /// Runs `script` by its digest (`EVALSHA`), and by its source (`EVAL`) when the server does
    /// not have it cached.
    ///
    /// ```swift
    /// let deleted = try await client.eval(compareAndDelete, keys: [key], arguments: [RESPArgument(token)])
    /// ```
    ///
    /// - Parameters:
    ///   - script: The script.
    ///   - keys: The keys the script touches.
    ///   - arguments: Its other arguments.
    /// - Returns: The script's result.
    /// - Throws: ``RedisClientError`` from `EVALSHA`, or from `EVAL` after a `NOSCRIPT`.
    /// - Complexity: One round trip; two when the script was not cached.
    public func eval(
        _ script: RedisScript, keys: [RESPArgument] = [], arguments: [RESPArgument] = []
    ) async throws(RedisClientError) -> RESPValue {
        do throws(RedisClientError) {
            return try await evalSHA(script.sha1, keys: keys, arguments: arguments)
        } catch  where error.serverErrorCode == "NOSCRIPT" {
            return try await eval(script.source, keys: keys, arguments: arguments)
        }
    }

    /// `SCAN cursor [MATCH pattern] [COUNT count]`: one page of the keys.
    ///
    /// ```swift
    /// let page = try await client.scan(cursor: 0, matching: "thumbnails:*", count: 1_000)
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: 0 to start, then the previous page's ``RedisScanPage/cursor``.
    ///   - pattern: A glob-style pattern keys must match (`*`, `?`, `[...]`), or `nil` for all.
    ///   - count: How much work the server does per page (a hint, not a page size), at least 1.
    /// - Returns: The page's keys and the next cursor.
    /// - Throws: ``RedisClientError/invalidValue(_:)`` for a count
    ///   below 1; any other ``RedisClientError``.
    /// - Complexity: One round trip.
    public func scan(
        cursor: UInt64, matching pattern: String? = nil, count: Int? = nil
    ) async throws(RedisClientError) -> RedisScanPage {
        var command: [RESPArgument] = ["SCAN", RESPArgument(cursor)]
        if let pattern { command += ["MATCH", RESPArgument(pattern)] }
        if let count {
            guard count >= 1 else {
                throw .invalidValue(InvalidValueError(field: "SCAN count", value: "\(count)", requirement: "at least 1"))
            }
            command += ["COUNT", RESPArgument(count)]
        }
        let reply = try await send(command)
        guard case .array(let elements?) = reply, elements.count == 2,
            case .bulkString(let cursorBytes?) = elements[0], case .array(let keyValues?) = elements[1],
            let next = UInt64(String(decoding: cursorBytes, as: UTF8.self))
        else {
            throw .unexpectedReply(command: "SCAN", expected: "a cursor and an array of keys", received: reply.summary)
        }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(keyValues.count)
        for value in keyValues {
            guard case .bulkString(let key?) = value else {
                throw .unexpectedReply(command: "SCAN", expected: "keys as bulk strings", received: value.summary)
            }
            keys.append(key)
        }
        return RedisScanPage(cursor: next, keys: keys)
    }

    /// `DBSIZE`: the number of keys in the selected database.
    ///
    /// ```swift
    /// let count = try await client.databaseSize()
    /// ```
    ///
    /// - Returns: The number of keys.
    /// - Throws: ``RedisClientError``.
    /// - Complexity: One round trip.
    public func databaseSize() async throws(RedisClientError) -> Int {
        try await integer(["DBSIZE"], name: "DBSIZE")
    }

    /// `INFO [section]`: the server's report, as `field:value` lines under `# Section` headers.
    ///
    /// ```swift
    /// let memory = try await client.info(section: "memory")  // "# Memory\r\nused_memory:1015304\r\n..."
    /// ```
    ///
    /// - Parameter section: A section (`"server"`, `"memory"`, `"stats"`, `"keyspace"`, ...), or
    ///   `nil` for the default ones.
    /// - Returns: The report's text.
    /// - Throws: ``RedisClientError``.
    /// - Complexity: One round trip.
    public func info(section: String? = nil) async throws(RedisClientError) -> String {
        let reply = try await send(section.map { ["INFO", RESPArgument($0)] } ?? ["INFO"])
        guard case .bulkString(let bytes?) = reply else {
            throw .unexpectedReply(command: "INFO", expected: "a bulk string", received: reply.summary)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `PTTL key`: how long until the key expires.
    ///
    /// ```swift
    /// if case .milliseconds(let remaining) = try await client.timeToLive("thumbnails:42") { print(remaining) }
    /// ```
    ///
    /// - Parameter key: The key.
    /// - Returns: The remaining time, or whether the key is missing or never expires.
    /// - Throws: ``RedisClientError``.
    /// - Complexity: One round trip.
    public func timeToLive(_ key: RESPArgument) async throws(RedisClientError) -> RedisTimeToLive {
        let reply = try await send(["PTTL", key])
        switch reply {
        case .integer(-2): return .keyMissing
        case .integer(-1): return .noExpiration
        case .integer(let milliseconds) where milliseconds >= 0: return .milliseconds(milliseconds)
        default: throw .unexpectedReply(command: "PTTL", expected: "an integer of -2 or more", received: reply.summary)
        }
    }
}

// MARK: - Helpers

extension RedisCommandExecuting {
    /// Sends `command` and returns its integer reply.
    private func integer(_ command: [RESPArgument], name: String) async throws(RedisClientError) -> Int {
        let reply = try await send(command)
        guard case .integer(let value) = reply, let integer = Int(exactly: value) else {
            throw .unexpectedReply(command: name, expected: "an integer", received: reply.summary)
        }
        return integer
    }
}
