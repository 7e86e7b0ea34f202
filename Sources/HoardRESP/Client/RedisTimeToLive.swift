/// A key's remaining time to live, from `PTTL`.
///
/// ```swift
/// switch try await client.timeToLive("thumbnails:42") {
/// case .keyMissing: print("gone")
/// case .noExpiration: print("kept until deleted")
/// case .milliseconds(let remaining): print("\(remaining) ms left")
/// }
/// ```
public enum RedisTimeToLive: Sendable, Hashable {
    /// The key does not exist (`PTTL` returned -2).
    case keyMissing
    /// The key exists and never expires (`PTTL` returned -1).
    case noExpiration
    /// The key expires in this many milliseconds (0 or more).
    case milliseconds(Int64)
}
