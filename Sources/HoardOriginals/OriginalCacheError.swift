/// Why the originals' cache could not keep or compare an original.
package enum OriginalCacheError: Error, Sendable, CustomStringConvertible {
    /// The cache could not store the original (the underlying error's description).
    case storeFailed(String)
    /// The system's SHA-256 failed, so the original cannot be compared with the cached one.
    case digestFailed

    package var description: String {
        switch self {
        case .storeFailed(let reason): reason
        case .digestFailed: "cannot compare the original with the cached one: the system's SHA-256 failed"
        }
    }
}
