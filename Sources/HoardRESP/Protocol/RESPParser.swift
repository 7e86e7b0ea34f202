// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// An incremental RESP2 parser: give it bytes as they arrive, in pieces of any size, and take
/// out each value once all of its bytes are there.
///
/// The parser keeps what it has not used yet (a partial line, a bulk string's payload so far,
/// the elements of unfinished arrays) and resumes where it stopped, so a value split across
/// reads costs no more than one that arrives whole, and how the bytes were split never changes
/// the values or the error. It is built for input from a peer it does not trust: every length is
/// checked against ``Limits`` before it is used, no memory is set aside for a declared length
/// (buffers grow as bytes arrive), integers are checked for overflow, every line must end in
/// CRLF, and the first violation is a ``RESPParseError`` naming it and its byte offset. After an
/// error the stream cannot be resynchronized: the parser drops its input and throws that error
/// again from every call.
///
/// ```swift
/// var parser = RESPParser()
/// parser.append(Array("+OK\r\n$5\r\nhel".utf8))
/// while let value = try parser.next() { print(value) }  // simpleString("OK")
/// parser.append(Array("lo\r\n".utf8))
/// while let value = try parser.next() { print(value) }  // bulkString([104, 101, 108, 108, 111])
/// ```
///
/// `feed(_:)` does both steps at once and reports how many of the given bytes ended values.
public struct RESPParser: Sendable {
    /// What one call of ``feed(_:)`` produced.
    public struct Output: Sendable, Hashable {
        /// The values completed, in order.
        public var values: [RESPValue]
        /// How many of the bytes given to this call belong to the completed values: those up to
        /// the end of the last one. The rest (`bytes.count - consumedByteCount`) starts a value
        /// the parser keeps until more bytes arrive.
        public var consumedByteCount: Int
    }

    /// The bounds the parser holds its input to.
    public let limits: Limits

    /// The bytes given and not yet used: `buffer[readIndex...]`.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The stream offset of `buffer[0]`.
    private var bufferStartOffset = 0
    /// How many bytes of the line starting at `readIndex` (type byte included) were scanned
    /// without finding its end, so that a line arriving byte by byte is scanned once.
    private var scannedLineByteCount = 0
    /// The arrays whose elements are still arriving, outermost first.
    private var openArrays: [OpenArray] = []
    /// The bulk string whose payload is arriving, if any.
    private var bulkString: PartialBulkString?
    /// The stream offset where the top-level value being parsed starts.
    private var valueStartOffset = 0
    /// The stream offset just past the last complete top-level value.
    private var lastValueEndOffset = 0
    /// The first error; thrown again from every later call.
    private var failure: RESPParseError?

    /// Every byte given so far, used or not.
    public private(set) var receivedByteCount = 0

    /// How many bytes given so far belong to a value that is not complete yet.
    ///
    /// ```swift
    /// var parser = RESPParser()
    /// parser.append(Array("$5\r\nhel".utf8))
    /// _ = try parser.next()      // nil
    /// parser.pendingByteCount    // 7
    /// ```
    ///
    /// - Complexity: O(1).
    public var pendingByteCount: Int { receivedByteCount - lastValueEndOffset }

    /// A parser that holds its input to `limits`.
    ///
    /// ```swift
    /// var parser = RESPParser(limits: try .init(maximumBulkStringLength: 1 << 20))
    /// ```
    ///
    /// - Parameter limits: The bounds on lengths, depth and value size; ``Limits/default`` if
    ///   not given.
    /// - Complexity: O(1).
    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Adds bytes that follow those given before; ``next()`` then parses them.
    ///
    /// Only the bytes not used yet are kept: once a value is taken out, its bytes are released.
    /// After an error the bytes are dropped.
    ///
    /// ```swift
    /// parser.append(Array(":42\r\n".utf8))
    /// ```
    ///
    /// - Parameter bytes: The next bytes of the stream; any number, including none.
    /// - Complexity: O(n) in the number of bytes, amortized.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        if readIndex > 0 && (readIndex == buffer.count || (readIndex >= 4096 && readIndex >= buffer.count / 2)) {
            bufferStartOffset += readIndex
            buffer.removeFirst(readIndex)
            readIndex = 0
            if buffer.isEmpty && buffer.capacity > 1 << 20 { buffer = [] }
        }
        let countBefore = buffer.count
        buffer.append(contentsOf: bytes)
        receivedByteCount += buffer.count - countBefore
    }

    /// Takes out the next complete value, or returns `nil` when its bytes have not all arrived.
    ///
    /// Call it until it returns `nil` after each ``append(_:)``.
    ///
    /// ```swift
    /// parser.append(Array("*2\r\n:1\r\n:2\r\n".utf8))
    /// let value = try parser.next()  // array([integer(1), integer(2)])
    /// ```
    ///
    /// - Returns: The next value, or `nil` if more bytes are needed.
    /// - Throws: ``RESPParseError`` at the first bytes that are not valid RESP2 or break a limit;
    ///   the same error from every later call.
    /// - Complexity: O(n) in the bytes parsed by this call.
    public mutating func next() throws(RESPParseError) -> RESPValue? {
        if let failure { throw failure }
        do throws(RESPParseError) {
            guard let value = try parseNext() else { return nil }
            lastValueEndOffset = offset(of: readIndex)
            return value
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            openArrays = []
            bulkString = nil
            throw error
        }
    }

    /// Adds `bytes` and takes out every value they complete.
    ///
    /// ```swift
    /// var parser = RESPParser()
    /// let output = try parser.feed(Array("+OK\r\n:1".utf8))
    /// output.values             // [simpleString("OK")]
    /// output.consumedByteCount  // 5; ":1" waits for its CRLF
    /// ```
    ///
    /// - Parameter bytes: The next bytes of the stream.
    /// - Returns: The values completed, and how many of `bytes` they used.
    /// - Throws: ``RESPParseError`` as ``next()`` does. Values completed before the error in
    ///   the same call are not returned; use ``append(_:)`` and ``next()`` to keep them.
    /// - Complexity: O(n) in the number of bytes.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(RESPParseError) -> Output {
        let inputStartOffset = receivedByteCount
        append(bytes)
        var values: [RESPValue] = []
        while let value = try next() { values.append(value) }
        return Output(values: values, consumedByteCount: max(0, lastValueEndOffset - inputStartOffset))
    }
}

// MARK: - Parsing

extension RESPParser {
    /// An array whose elements are still arriving.
    private struct OpenArray: Sendable {
        var count: Int
        var elements: [RESPValue] = []
    }

    /// A bulk string whose payload or terminator is still arriving.
    private struct PartialBulkString: Sendable {
        var remaining: Int
        var payload: [UInt8] = []
        var terminatorByteCount = 0
    }

    private static let carriageReturn: UInt8 = 0x0D
    private static let lineFeed: UInt8 = 0x0A

    private func offset(of index: Int) -> Int { bufferStartOffset + index }

    /// Parses until a top-level value is complete or the bytes run out.
    private mutating func parseNext() throws(RESPParseError) -> RESPValue? {
        while true {
            if bulkString != nil {
                guard let payload = try continueBulkString() else { return nil }
                if let value = finish(.bulkString(payload)) { return value }
                continue
            }
            guard readIndex < buffer.count else { return nil }
            let lineStart = readIndex
            if openArrays.isEmpty && scannedLineByteCount == 0 { valueStartOffset = offset(of: lineStart) }
            let type = buffer[lineStart]
            switch type {
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "$"), UInt8(ascii: "*"): break
            default: throw RESPParseError(.unknownType(byte: type), at: offset(of: lineStart))
            }
            guard let contentEnd = try scanLine() else { return nil }
            let content = (lineStart + 1)..<contentEnd
            readIndex = contentEnd + 2
            scannedLineByteCount = 0
            let valueByteCount = offset(of: readIndex) - valueStartOffset
            guard valueByteCount <= limits.maximumValueByteCount else {
                throw RESPParseError(.valueTooLarge(maximum: limits.maximumValueByteCount), at: offset(of: lineStart))
            }
            let value: RESPValue
            switch type {
            case UInt8(ascii: "+"):
                value = .simpleString(String(decoding: buffer[content], as: UTF8.self))
            case UInt8(ascii: "-"):
                value = .error(String(decoding: buffer[content], as: UTF8.self))
            case UInt8(ascii: ":"):
                value = .integer(try integer(in: content, lineStart: lineStart))
            case UInt8(ascii: "$"):
                let length = try self.length(in: content, lineStart: lineStart)
                if length == -1 {
                    value = .bulkString(nil)
                    break
                }
                guard length <= limits.maximumBulkStringLength else {
                    throw RESPParseError(
                        .bulkStringTooLong(length: length, maximum: limits.maximumBulkStringLength),
                        at: offset(of: lineStart))
                }
                // valueByteCount <= maximum: the room left is 0 or more, and taking 2 (the CRLF)
                // from it cannot overflow, where adding 2 to a length near Int.max would.
                guard length <= limits.maximumValueByteCount - valueByteCount - 2 else {
                    throw RESPParseError(
                        .valueTooLarge(maximum: limits.maximumValueByteCount), at: offset(of: lineStart))
                }
                var partial = PartialBulkString(remaining: length)
                // Room for the payload up front (up to 1 MiB: a declared length is not yet bytes
                // that arrived), so that it grows without copies as its pieces come.
                partial.payload.reserveCapacity(min(length, 1 << 20))
                bulkString = partial
                continue
            default:  // "*"
                let count = try length(in: content, lineStart: lineStart)
                if count == -1 {
                    value = .array(nil)
                    break
                }
                guard count <= limits.maximumArrayLength else {
                    throw RESPParseError(
                        .arrayTooLong(count: count, maximum: limits.maximumArrayLength), at: offset(of: lineStart))
                }
                guard openArrays.count < limits.maximumDepth else {
                    throw RESPParseError(.nestingTooDeep(maximum: limits.maximumDepth), at: offset(of: lineStart))
                }
                if count == 0 {
                    value = .array([])
                    break
                }
                openArrays.append(OpenArray(count: count))
                continue
            }
            if let value = finish(value) { return value }
        }
    }

    /// Finds the CRLF ending the line that starts at `readIndex` (with its type byte).
    ///
    /// Scans each byte once across calls, and judges each byte by it and the one after it
    /// only, so that where the input was split never changes the outcome.
    ///
    /// - Returns: The index of the line's CR, or `nil` when the line has not ended yet.
    private mutating func scanLine() throws(RESPParseError) -> Int? {
        let contentStart = readIndex + 1
        var index = readIndex + max(1, scannedLineByteCount)
        while index < buffer.count {
            let byte = buffer[index]
            if byte == Self.carriageReturn {
                guard index + 1 < buffer.count else { break }
                guard buffer[index + 1] == Self.lineFeed else {
                    throw RESPParseError(.carriageReturnWithoutLineFeed, at: offset(of: index))
                }
                return index
            }
            if byte == Self.lineFeed {
                throw RESPParseError(.lineFeedWithoutCarriageReturn, at: offset(of: index))
            }
            if index - contentStart >= limits.maximumLineLength {
                throw RESPParseError(.lineTooLong(maximum: limits.maximumLineLength), at: offset(of: readIndex))
            }
            index += 1
        }
        scannedLineByteCount = index - readIndex
        return nil
    }

    /// Moves the bulk string's payload and terminator out of the buffer as they arrive.
    ///
    /// - Returns: The payload once it and its CRLF are complete, else `nil`.
    private mutating func continueBulkString() throws(RESPParseError) -> [UInt8]? {
        guard var partial = bulkString else { return nil }
        bulkString = nil  // `partial` is now the payload's only reference: appending does not copy it
        if partial.remaining > 0 {
            let count = min(buffer.count - readIndex, partial.remaining)
            if count > 0 {
                partial.payload.append(contentsOf: buffer[readIndex..<(readIndex + count)])
                readIndex += count
                partial.remaining -= count
            }
            if partial.remaining > 0 {
                bulkString = partial
                return nil
            }
        }
        while partial.terminatorByteCount < 2 {
            guard readIndex < buffer.count else {
                bulkString = partial
                return nil
            }
            let expected = partial.terminatorByteCount == 0 ? Self.carriageReturn : Self.lineFeed
            guard buffer[readIndex] == expected else {
                throw RESPParseError(.missingBulkStringTerminator, at: offset(of: readIndex))
            }
            readIndex += 1
            partial.terminatorByteCount += 1
        }
        return partial.payload
    }

    /// Adds a complete value to the innermost open array, closing every array it completes.
    ///
    /// - Returns: The top-level value, once complete; `nil` while an array is still open.
    private mutating func finish(_ value: RESPValue) -> RESPValue? {
        var value = value
        while !openArrays.isEmpty {
            let last = openArrays.count - 1
            openArrays[last].elements.append(value)
            guard openArrays[last].elements.count == openArrays[last].count else { return nil }
            value = .array(openArrays.removeLast().elements)
        }
        return value
    }

    /// The signed decimal integer in `buffer[range]`: an optional `-` and at least one digit.
    private func integer(in range: Range<Int>, lineStart: Int) throws(RESPParseError) -> Int64 {
        var index = range.lowerBound
        let negative = index < range.upperBound && buffer[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < range.upperBound else { throw RESPParseError(.invalidInteger, at: offset(of: lineStart)) }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = buffer[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw RESPParseError(.invalidInteger, at: offset(of: lineStart)) }
            // Accumulated negatively for a negative number, so that Int64.min is reachable.
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 10)
            let (next, digitOverflow) =
                negative
                ? shifted.subtractingReportingOverflow(Int64(digit)) : shifted.addingReportingOverflow(Int64(digit))
            guard !shiftOverflow && !digitOverflow else {
                throw RESPParseError(.integerOverflow, at: offset(of: lineStart))
            }
            value = next
            index += 1
        }
        return value
    }

    /// A bulk string or array length: -1 (null) or at least 0.
    private func length(in range: Range<Int>, lineStart: Int) throws(RESPParseError) -> Int {
        let value = try integer(in: range, lineStart: lineStart)
        guard let length = Int(exactly: value) else {
            throw RESPParseError(.integerOverflow, at: offset(of: lineStart))
        }
        guard length >= -1 else { throw RESPParseError(.negativeLength(length), at: offset(of: lineStart)) }
        return length
    }
}
