#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension dirent {
    /// The entry's name: `d_name` up to its terminating NUL, decoded as UTF-8.
    package var name: String {
        withUnsafeBytes(of: d_name) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}
