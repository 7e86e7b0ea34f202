/// A Lua script and its SHA-1, for `EVALSHA` with a fallback to `EVAL`.
///
/// Redis caches scripts by the SHA-1 of their source: ``RedisCommandExecuting/eval(_:keys:arguments:)-(RedisScript,_,_)``
/// sends the 40-character digest (`EVALSHA`) instead of the source and, when the server does
/// not know it (`NOSCRIPT`: after a restart, a failover or `SCRIPT FLUSH`), the source (`EVAL`),
/// which caches it again.
///
/// ```swift
/// static let compareAndDelete = RedisScript(
///     "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end")
/// let deleted = try await client.eval(Self.compareAndDelete, keys: [key], arguments: [RESPArgument(token)])
/// ```
public struct RedisScript: Sendable, Hashable {
    /// The Lua source.
    public let source: String
    /// The SHA-1 of the source's UTF-8, 40 lowercase hexadecimal digits: what `SCRIPT LOAD`
    /// returns and `EVALSHA` takes.
    public let sha1: String

    /// A script with `source`, its digest computed here.
    ///
    /// ```swift
    /// let script = RedisScript("return 1")
    /// script.sha1  // "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"
    /// ```
    ///
    /// - Parameter source: The Lua source.
    /// - Complexity: O(n) in the length of the source.
    public init(_ source: String) {
        self.source = source
        self.sha1 = SHA1.hexDigest(of: Array(source.utf8))
    }
}
