// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// One RESP2 value: what a Redis server sends back, and (as an array of bulk strings) what a
/// client sends.
///
/// RESP2 has five types, told apart by their first byte: `+` simple string, `-` error, `:`
/// integer, `$` bulk string (binary-safe bytes, or null) and `*` array (of any values, or null).
/// ``RESPParser`` reads them from bytes and ``RESPEncoder`` writes them.
///
/// ```swift
/// let reply: RESPValue = .array([.bulkString(Array("key".utf8)), .integer(42), .bulkString(nil)])
/// if case .array(let elements?) = reply { print(elements.count) }  // 3
/// ```
///
/// Simple strings and errors are text lines: the parser decodes them as UTF-8, replacing
/// invalid bytes with U+FFFD, and they cannot hold CR or LF (the encoder writes those as
/// spaces, as Redis does). Bulk strings hold any bytes.
public enum RESPValue: Sendable, Hashable {
    /// `+OK\r\n`: a line of text, such as a status reply.
    case simpleString(String)
    /// `-ERR unknown command\r\n`: an error reply; the text starts with an error code such as
    /// `ERR`, `WRONGTYPE`, `NOSCRIPT` or `OOM`.
    case error(String)
    /// `:42\r\n`: a signed 64-bit integer.
    case integer(Int64)
    /// `$3\r\nabc\r\n`: binary-safe bytes; `nil` for the null bulk string `$-1\r\n`, which
    /// Redis sends for a missing key.
    case bulkString([UInt8]?)
    /// `*2\r\n...`: a sequence of values; `nil` for the null array `*-1\r\n`.
    case array([RESPValue]?)
}

extension RESPValue {
    /// The null bulk string, `$-1\r\n`: Redis's reply for a missing key.
    public static let null = RESPValue.bulkString(nil)

    /// The name of the value's type, for messages: `"simple string"`, `"error"`, `"integer"`,
    /// `"bulk string"`, `"null bulk string"`, `"array"` or `"null array"`.
    ///
    /// Never contains the value itself, so it is safe in error descriptions and logs.
    ///
    /// ```swift
    /// RESPValue.integer(3).typeName  // "integer"
    /// ```
    ///
    /// - Complexity: O(1).
    public var typeName: String {
        switch self {
        case .simpleString: "simple string"
        case .error: "error"
        case .integer: "integer"
        case .bulkString(.some): "bulk string"
        case .bulkString(.none): "null bulk string"
        case .array(.some): "array"
        case .array(.none): "null array"
        }
    }

    /// The type and size of the value, without its contents: `"bulk string (12 bytes)"`,
    /// `"array (3 elements)"`, `"integer"`.
    ///
    /// What error messages say about a reply they did not expect: a reply can hold a cached
    /// value, which does not belong in a log.
    ///
    /// ```swift
    /// RESPValue.bulkString([1, 2, 3]).summary  // "bulk string (3 bytes)"
    /// ```
    ///
    /// - Complexity: O(1).
    public var summary: String {
        switch self {
        case .simpleString(let text): "simple string (\(text.utf8.count) bytes)"
        case .error(let text): "error (\(text.utf8.count) bytes)"
        case .bulkString(let bytes?): "bulk string (\(bytes.count) bytes)"
        case .array(let elements?): "array (\(elements.count) elements)"
        case .integer, .bulkString(.none), .array(.none): typeName
        }
    }
}
