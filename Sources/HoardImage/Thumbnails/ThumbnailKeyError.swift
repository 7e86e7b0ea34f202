import HoardCore
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a ``ThumbnailKey`` could not be made.
///
/// ```swift
/// do {
///     let key = try ThumbnailKey(file: "/photos/a.jpg", size: 256)
/// } catch ThumbnailKeyError.fileUnavailable(let path, _, let errno) where errno == ENOENT {
///     print("\(path) is gone")
/// }
/// ```
public enum ThumbnailKeyError: Error, Sendable, Hashable {
    /// A size, quality, source or fingerprint field the key cannot hold; the error names it.
    case invalidValue(InvalidValueError)
    /// A local file's size and modification time could not be read: `call` (`stat`) failed with `errno`.
    case fileUnavailable(path: String, call: String, errno: Int32)
    /// A URL that is neither http(s) with a host nor a `file:` URL.
    case unsupportedURL(String)
    /// The system's SHA-256, which replaces a URL's user name and password in the key, failed.
    case hashUnavailable
}

extension ThumbnailKeyError: CustomStringConvertible {
    /// A sentence naming the value, file or URL involved.
    public var description: String {
        switch self {
        case .invalidValue(let error):
            "Invalid thumbnail key: \(error)"
        case .fileUnavailable(let path, let call, let code):
            "Cannot read the size and modification time of \(path): \(call) failed: "
                + "\(String(cString: strerror(code))) (errno \(code))"
        case .unsupportedURL(let url):
            "A thumbnail key needs an http(s) URL with a host or a file URL, got \(url)"
        case .hashUnavailable:
            "Cannot make a thumbnail key for a URL with credentials: the system's SHA-256 failed"
        }
    }
}
