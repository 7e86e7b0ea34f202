/// When a key set with ``RedisCommandExecuting/set(_:to:expiration:onlyIfAbsent:)`` expires.
///
/// ```swift
/// try await client.set("session:7", to: token, expiration: .after(milliseconds: 30_000))
/// try await client.set("report", to: bytes, expiration: .at(unixTimeMilliseconds: 1_900_000_000_000))
/// ```
public enum RedisExpiration: Sendable, Hashable {
    /// After `milliseconds` (at least 1): `SET ... PX milliseconds`.
    case after(milliseconds: Int64)
    /// At a Unix time in milliseconds (at least 1): `SET ... PXAT unixTimeMilliseconds` (Redis 6.2
    /// and later). A time already past deletes the key at once.
    case at(unixTimeMilliseconds: Int64)
}
