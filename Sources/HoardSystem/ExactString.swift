#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string that is equal to another only when their UTF-8 bytes are: a cache key or a path as a
/// byte string.
///
/// Swift's `==` on `String` compares by Unicode canonical equivalence, so "café" written with a
/// precomposed "é" (NFC) equals the one with "e" and a combining accent (NFD). They are two file
/// names on disk and two keys on the disk and Redis tiers (which hash the bytes); every dictionary
/// and set of keys or paths uses this type, so that no part of the cache mixes them up.
///
/// ```swift
/// ExactString("caf\u{E9}") == ExactString("cafe\u{301}")  // false; as Strings they are equal
/// ```
package struct ExactString: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let string: String

    package init(_ string: String) {
        self.string = string
    }

    package init(stringLiteral value: String) {
        self.init(value)
    }

    package var description: String { string }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        // Byte counts first (constant time for native strings), then one comparison of the bytes:
        // `utf8.elementsEqual` walks them one by one through the view's indices.
        guard lhs.string.utf8.count == rhs.string.utf8.count else { return false }
        var left = lhs.string
        var right = rhs.string
        return left.withUTF8 { left in
            right.withUTF8 { right in
                guard let leftBytes = left.baseAddress, let rightBytes = right.baseAddress else { return true }
                return memcmp(leftBytes, rightBytes, left.count) == 0
            }
        }
    }

    package func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
