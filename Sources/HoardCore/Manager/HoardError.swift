import HoardSystem

/// Why a ``Hoard`` operation failed.
public enum HoardError: Error, Sendable {
    /// The value stored for `key` is of another type than the one asked for; nothing was decoded.
    case typeMismatch(key: String, expected: String, stored: String)
    /// The value for `key` could not be encoded by its ``Cachable`` conformance.
    case encodingFailed(key: String, type: String, underlying: any Error)
    /// A byte tier failed: which one, and its own error. The disk tier's is a ``DiskCacheError``
    /// naming the path, the call and the errno:
    ///
    /// ```swift
    /// do {
    ///     try await hoard.store(value, forKey: key)
    /// } catch let error as HoardError {
    ///     if let disk = error.diskError { logger.error("disk: \(disk)") }
    /// }
    /// ```
    case tier(CacheTierIdentifier, underlying: any Error)
    /// A configuration name that is empty or not a single plain folder name.
    case invalidName(String)
    /// A value passed in a configuration or a call that Hoard cannot use; the error names it.
    case invalidValue(InvalidValueError)
    /// An operation needs a tier the configuration does not list (the folder operations need
    /// ``Hoard/Configuration/Tier/disk``).
    case tierNotConfigured(CacheTierIdentifier)
    /// ``CachePolicy/cacheOnly`` found no fresh value for `key` (and was not allowed to fetch one).
    case notCached(key: String)

    /// Wraps an error thrown by `tier`: a ``HoardError`` stays as it is, an ``InvalidValueError``
    /// is ``invalidValue(_:)``, anything else is ``tier(_:underlying:)``.
    init(tier: CacheTierIdentifier, wrapping error: any Error) {
        switch error {
        case let error as HoardError: self = error
        case let error as InvalidValueError: self = .invalidValue(error)
        default: self = .tier(tier, underlying: error)
        }
    }

    /// The disk tier's error, when this is one.
    public var diskError: DiskCacheError? {
        // Statements, not a `guard case` with a condition, a `let x as T` payload pattern or a
        // conditional expression: with this toolchain each of those, when it did not match, left
        // the bound error retained once too often or released it once too often.
        guard case .tier(let tier, let underlying) = self else { return nil }
        return Self.diskError(tier: tier, underlying: underlying)
    }

    private static func diskError(tier: CacheTierIdentifier, underlying: any Error) -> DiskCacheError? {
        if tier != .disk { return nil }
        if let error = underlying as? DiskCacheError { return error }
        return nil
    }
}

extension HoardError {
    /// What ``typeMismatch(key:expected:stored:)`` names as stored when an entry's bytes carry no
    /// type tag (written by ``DiskCache`` or another tier directly, not through ``Hoard``).
    static let untaggedValue = "raw value with no type tag"
}

extension HoardError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .typeMismatch(let key, let expected, let stored):
            "Cache entry \"\(key)\" holds a \(stored), not a \(expected)"
        case .encodingFailed(let key, let type, let underlying):
            "Cannot encode \(type) for cache key \"\(key)\": \(underlying)"
        case .tier(let tier, let error):
            Self.describe(tier: tier, error: error)
        case .invalidName(let name):
            "Invalid cache name \"\(name)\": use letters, digits, '.', '-' and '_' (not '.' or '..')"
        case .invalidValue(let error):
            "Invalid value: \(error)"
        case .tierNotConfigured(let tier):
            "This cache has no \(tier) tier: add it to Hoard.Configuration.tiers"
        case .notCached(let key):
            "No fresh cached value for \"\(key)\" and the cache-only policy forbids fetching one"
        }
    }

    private static func describe(tier: CacheTierIdentifier, error: any Error) -> String {
        if tier == .disk { return "Disk cache: \(error)" }
        return "Cache tier \(tier): \(error)"
    }
}
