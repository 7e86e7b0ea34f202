import HoardSystem

/// Why a ``Hoard`` operation failed.
public enum HoardError: Error, Sendable {
    /// The value stored for `key` is of another type than the one asked for; nothing was decoded.
    case typeMismatch(key: String, expected: String, stored: String)
    /// The value for `key` could not be encoded by its ``Cachable`` conformance.
    case encodingFailed(key: String, type: String, underlying: any Error)
    /// The disk tier failed; the ``DiskCacheError`` names the path, the call and the errno.
    case disk(DiskCacheError)
    /// A configuration name that is empty or not a single plain folder name.
    case invalidName(String)
    /// A value passed in a configuration or a call that Hoard cannot use; the error names it.
    case invalidValue(InvalidValueError)
    /// ``CachePolicy/cacheOnly`` found no fresh value for `key` (and was not allowed to fetch one).
    case notCached(key: String)
    /// An error from a lower layer that Hoard does not classify.
    case other(any Error)

    /// Wraps an error thrown by a tier.
    init(wrapping error: any Error) {
        switch error {
        case let error as HoardError: self = error
        case let error as DiskCacheError: self = .disk(error)
        case let error as InvalidValueError: self = .invalidValue(error)
        default: self = .other(error)
        }
    }
}

extension HoardError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .typeMismatch(let key, let expected, let stored):
            "Cache entry \"\(key)\" holds a \(stored), not a \(expected)"
        case .encodingFailed(let key, let type, let underlying):
            "Cannot encode \(type) for cache key \"\(key)\": \(underlying)"
        case .disk(let error):
            "Disk cache: \(error)"
        case .invalidName(let name):
            "Invalid cache name \"\(name)\": use letters, digits, '.', '-' and '_' (not '.' or '..')"
        case .invalidValue(let error):
            "Invalid value: \(error)"
        case .notCached(let key):
            "No fresh cached value for \"\(key)\" and the cache-only policy forbids fetching one"
        case .other(let error):
            "\(error)"
        }
    }
}
