// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// Why bytes are not valid RESP2, and where: the byte offset from the start of the stream given
/// to the ``RESPParser``.
///
/// A stream with an error cannot be resynchronized (the next value's start is unknown), so the
/// parser stops at the first one and throws it again from then on; a client closes the
/// connection.
///
/// ```swift
/// var parser = RESPParser()
/// parser.append(Array("$-5\r\n".utf8))
/// do {
///     _ = try parser.next()
/// } catch {
///     print(error)  // "Invalid RESP at byte 0: a length of -5 is negative (only -1, meaning null, is allowed)"
/// }
/// ```
public struct RESPParseError: Error, Sendable, Hashable {
    /// What is wrong with the bytes.
    public enum Reason: Sendable, Hashable {
        /// A value starts with `byte`, which is none of RESP2's `+ - : $ *`.
        case unknownType(byte: UInt8)
        /// A carriage return not followed by a line feed.
        case carriageReturnWithoutLineFeed
        /// A line feed not preceded by a carriage return.
        case lineFeedWithoutCarriageReturn
        /// A line (simple string, error, integer or length) is longer than `maximum` bytes
        /// before its CRLF.
        case lineTooLong(maximum: Int)
        /// An integer reply or a length is not an optional `-` followed by decimal digits.
        case invalidInteger
        /// An integer reply or a length does not fit in 64 bits.
        case integerOverflow
        /// A bulk string or array length below -1 (-1 means null).
        case negativeLength(Int)
        /// A bulk string declares `length` bytes, more than the parser's `maximum`.
        case bulkStringTooLong(length: Int, maximum: Int)
        /// An array declares `count` elements, more than the parser's `maximum`.
        case arrayTooLong(count: Int, maximum: Int)
        /// Arrays nested deeper than `maximum` levels.
        case nestingTooDeep(maximum: Int)
        /// One top-level value takes more than `maximum` bytes of the stream.
        case valueTooLarge(maximum: Int)
        /// The two bytes after a bulk string's payload are not CRLF.
        case missingBulkStringTerminator
    }

    /// What is wrong with the bytes.
    public var reason: Reason
    /// The offset of the offending byte (for a line or a declared length: the first byte of its
    /// line, the type byte), counted from the first byte the parser was given.
    public var offset: Int

    /// An error for `reason` at `offset`.
    ///
    /// ```swift
    /// let error = RESPParseError(.invalidInteger, at: 12)
    /// ```
    ///
    /// - Parameters:
    ///   - reason: What is wrong.
    ///   - offset: Where, in bytes from the start of the stream.
    /// - Complexity: O(1).
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }
}

extension RESPParseError: CustomStringConvertible {
    /// `"Invalid RESP at byte <offset>: <reason>"`.
    public var description: String {
        "Invalid RESP at byte \(offset): \(reason)"
    }
}

extension RESPParseError.Reason: CustomStringConvertible {
    /// What is wrong, in a few words.
    public var description: String {
        switch self {
        case .unknownType(let byte):
            "a value starts with byte \(byte), which is not a RESP2 type (+ - : $ *)"
        case .carriageReturnWithoutLineFeed:
            "a carriage return is not followed by a line feed"
        case .lineFeedWithoutCarriageReturn:
            "a line feed is not preceded by a carriage return"
        case .lineTooLong(let maximum):
            "a line is longer than the maximum of \(maximum) bytes"
        case .invalidInteger:
            "an integer or length is not an optional '-' followed by decimal digits"
        case .integerOverflow:
            "an integer or length does not fit in 64 bits"
        case .negativeLength(let length):
            "a length of \(length) is negative (only -1, meaning null, is allowed)"
        case .bulkStringTooLong(let length, let maximum):
            "a bulk string of \(length) bytes is longer than the maximum of \(maximum)"
        case .arrayTooLong(let count, let maximum):
            "an array of \(count) elements is longer than the maximum of \(maximum)"
        case .nestingTooDeep(let maximum):
            "arrays are nested deeper than the maximum of \(maximum) levels"
        case .valueTooLarge(let maximum):
            "a value is larger than the maximum of \(maximum) bytes"
        case .missingBulkStringTerminator:
            "a bulk string's payload is not followed by CRLF"
        }
    }
}
