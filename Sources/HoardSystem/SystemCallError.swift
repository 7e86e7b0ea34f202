#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed C call: which function and the `errno` it left.
package struct SystemCallError: Error, Sendable, Hashable {
    /// The C function that failed, e.g. `"rename"`.
    package var call: String
    /// The `errno` value after the failure.
    package var errno: Int32
    /// The path the call was made on, when the caller may not know it (a parent folder).
    package var path: String?

    package init(call: String, errno: Int32, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }
}

extension SystemCallError: CustomStringConvertible {
    /// `"<call> failed: <strerror> (errno N)"`, with the path when known.
    package var description: String {
        let reason = "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        return path.map { "\($0): \(reason)" } ?? reason
    }
}
