import HoardRESP
import HoardSystem

/// Why a ``RedisTier`` could not be made, or (in ``RedisTier/checkReachable()``) why a server
/// cannot be used.
///
/// The tier's own operations never throw: a server that fails is logged and counted, reads are
/// misses and writes are dropped.
public enum RedisTierError: Error, Sendable {
    /// A configuration field the tier cannot use.
    case invalidValue(InvalidValueError)
    /// The client refused its configuration (an unreadable TLS certificate, a bad URL).
    case client(RedisClientError)
    /// A server did not answer `PING`: `server` is its address (without credentials).
    case unreachable(server: String, underlying: RedisClientError)
}

extension RedisTierError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidValue(let error):
            "\(error)"
        case .client(let error):
            "\(error)"
        case .unreachable(let server, let error):
            "Redis server \(server) is unreachable: \(error)"
        }
    }
}
