/// Something that sends Redis commands and returns their replies: the one requirement a Redis
/// client must meet for Hoard's Redis tier.
///
/// ``NIORedisClient`` is this package's implementation. Another client (a maintained library)
/// fits by implementing ``send(_:)`` in one file: the typed commands (``get(_:)``,
/// ``set(_:to:expiration:onlyIfAbsent:)``, ``eval(_:keys:arguments:)-(String,_,_)``, ...) are
/// built on it in an extension.
///
/// ```swift
/// func lookUp(_ key: String, in redis: any RedisCommandExecuting) async throws(RedisClientError) -> [UInt8]? {
///     try await redis.get(RESPArgument(key))
/// }
/// ```
///
/// Implementations are safe to call from any task, concurrently.
public protocol RedisCommandExecuting: Sendable {
    /// Sends one command and returns its reply.
    ///
    /// Implementations must bound the wait (a deadline per command), throw a top-level error
    /// reply as ``RedisClientError/init(serverErrorMessage:command:)`` makes it, and never put
    /// the command's arguments in an error.
    ///
    /// ```swift
    /// let reply = try await redis.send(["CLIENT", "ID"])
    /// ```
    ///
    /// - Parameter command: The command's name and arguments; not empty.
    /// - Returns: The reply; never ``RESPValue/error(_:)`` (errors nested in an array are
    ///   returned as they are).
    /// - Throws: ``RedisClientError``: the server's error reply, a timeout, a connection or
    ///   protocol failure, an empty command.
    /// - Complexity: One round trip to the server, plus a connection when none is open.
    func send(_ command: [RESPArgument]) async throws(RedisClientError) -> RESPValue
}
