// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// One argument of a Redis command: binary-safe bytes, sent as a RESP bulk string.
///
/// Commands are arrays of arguments, the first being the command's name. Arguments are made
/// from bytes, text (UTF-8) or integers (decimal), and from string literals:
///
/// ```swift
/// let command: [RESPArgument] = ["SET", RESPArgument(key), RESPArgument(bytes), "PX", RESPArgument(5_000)]
/// let bytes = RESPEncoder.encodeCommand(command)
/// ```
///
/// An argument's description shows only its size, never its bytes: an argument can be a
/// password (`AUTH`) or a cached value.
public struct RESPArgument: Sendable, Hashable {
    /// The bytes sent.
    public var bytes: [UInt8]

    /// An argument holding `bytes` unchanged.
    ///
    /// ```swift
    /// let value = RESPArgument([0x00, 0xFF])
    /// ```
    ///
    /// - Parameter bytes: Any bytes; RESP bulk strings are binary-safe.
    /// - Complexity: O(1).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An argument holding the UTF-8 encoding of `text`.
    ///
    /// ```swift
    /// let key = RESPArgument("thumbnails:42")
    /// ```
    ///
    /// - Parameter text: The text, sent as UTF-8.
    /// - Complexity: O(n) in the length of `text`.
    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// An argument holding `integer` in decimal, as Redis expects numbers (`"-12"`).
    ///
    /// ```swift
    /// let milliseconds = RESPArgument(5_000)  // the bytes of "5000"
    /// ```
    ///
    /// - Parameter integer: Any integer that fits in 64 bits, signed or not.
    /// - Complexity: O(1).
    public init(_ integer: some BinaryInteger) {
        self.bytes = Array(String(integer).utf8)
    }
}

extension RESPArgument: ExpressibleByStringLiteral {
    /// An argument holding the UTF-8 encoding of a string literal, such as a command name.
    ///
    /// ```swift
    /// let command: [RESPArgument] = ["PING"]
    /// ```
    ///
    /// - Parameter value: The literal.
    /// - Complexity: O(n) in the length of the literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension RESPArgument: CustomStringConvertible {
    /// `"RESPArgument(5 bytes)"`: the size only, since an argument can be a password or a cached
    /// value.
    public var description: String {
        "RESPArgument(\(bytes.count) bytes)"
    }
}
