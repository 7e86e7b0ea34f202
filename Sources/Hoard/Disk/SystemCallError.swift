/// A failed C call: which function and the `errno` it left.
struct SystemCallError: Error, Sendable, Hashable {
    /// The C function that failed, e.g. `"rename"`.
    var call: String
    /// The `errno` value after the failure.
    var errno: Int32
    /// The path the call was made on, when the caller may not know it (a parent folder).
    var path: String?
}
