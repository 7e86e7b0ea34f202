import HoardRESP
import RedisTestSupport
import Testing

/// Bytes and the values they parse to: every type, nesting, nulls, edge values.
private let wellFormed: [(name: String, bytes: String, values: [RESPValue])] = [
    ("simple string", "+OK\r\n", [.simpleString("OK")]),
    ("empty simple string", "+\r\n", [.simpleString("")]),
    ("error", "-ERR unknown command 'FOO'\r\n", [.error("ERR unknown command 'FOO'")]),
    ("integer", ":42\r\n", [.integer(42)]),
    ("negative integer", ":-7\r\n", [.integer(-7)]),
    ("integer extremes", ":9223372036854775807\r\n:-9223372036854775808\r\n", [.integer(.max), .integer(.min)]),
    ("bulk string", "$5\r\nhello\r\n", [.bulkString(Array("hello".utf8))]),
    ("bulk string with CRLF inside", "$4\r\n\r\n\r\n\r\n", [.bulkString([13, 10, 13, 10])]),
    ("empty bulk string", "$0\r\n\r\n", [.bulkString([])]),
    ("null bulk string", "$-1\r\n", [.bulkString(nil)]),
    ("array", "*2\r\n$3\r\nfoo\r\n:1\r\n", [.array([.bulkString(Array("foo".utf8)), .integer(1)])]),
    ("empty array", "*0\r\n", [.array([])]),
    ("null array", "*-1\r\n", [.array(nil)]),
    (
        "nested arrays", "*3\r\n*1\r\n*0\r\n$-1\r\n*2\r\n+a\r\n-b\r\n",
        [.array([.array([.array([])]), .bulkString(nil), .array([.simpleString("a"), .error("b")])])]
    ),
    (
        "several values", "+OK\r\n:1\r\n$-1\r\n*-1\r\n",
        [.simpleString("OK"), .integer(1), .bulkString(nil), .array(nil)]
    ),
    (
        "SCAN reply", "*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n",
        [.array([.bulkString([48]), .array([.bulkString([97]), .bulkString([98])])])]
    ),
]

/// Bytes that are not RESP2, and the error with its offset.
private let malformed: [(name: String, bytes: String, error: RESPParseError)] = [
    ("unknown type", "%1\r\n", .init(.unknownType(byte: UInt8(ascii: "%")), at: 0)),
    ("RESP3 null", "_\r\n", .init(.unknownType(byte: UInt8(ascii: "_")), at: 0)),
    ("CRLF where a value starts", "+OK\r\n\r\n", .init(.unknownType(byte: 13), at: 5)),
    ("line feed alone", "+OK\n", .init(.lineFeedWithoutCarriageReturn, at: 3)),
    ("line feed inside a line", "+a\nb\r\n", .init(.lineFeedWithoutCarriageReturn, at: 2)),
    ("carriage return alone", "+OK\rX\r\n", .init(.carriageReturnWithoutLineFeed, at: 3)),
    ("integer with a letter", "+OK\r\n:12a\r\n", .init(.invalidInteger, at: 5)),
    ("empty integer", ":\r\n", .init(.invalidInteger, at: 0)),
    ("minus alone", ":-\r\n", .init(.invalidInteger, at: 0)),
    ("plus sign", ":+1\r\n", .init(.invalidInteger, at: 0)),
    ("integer overflow", ":9223372036854775808\r\n", .init(.integerOverflow, at: 0)),
    ("integer underflow", ":-9223372036854775809\r\n", .init(.integerOverflow, at: 0)),
    ("length overflow", "$99999999999999999999\r\n", .init(.integerOverflow, at: 0)),
    ("bulk length -2", "$-2\r\n", .init(.negativeLength(-2), at: 0)),
    ("bulk length Int64.min", "$-9223372036854775808\r\n", .init(.negativeLength(Int(Int64.min)), at: 0)),
    ("array length -5", "*-5\r\n", .init(.negativeLength(-5), at: 0)),
    ("empty length", "$\r\n", .init(.invalidInteger, at: 0)),
    (
        "bulk string too long", "$536870913\r\n",
        .init(.bulkStringTooLong(length: 536_870_913, maximum: 536_870_912), at: 0)
    ),
    ("array too long", "*16777217\r\n", .init(.arrayTooLong(count: 16_777_217, maximum: 16_777_216), at: 0)),
    ("bulk string without terminator", "$2\r\nabXY", .init(.missingBulkStringTerminator, at: 6)),
    ("bulk string with CR only", "$2\r\nab\rX", .init(.missingBulkStringTerminator, at: 7)),
    ("bulk string longer than declared", "$1\r\nab\r\n", .init(.missingBulkStringTerminator, at: 5)),
    ("error inside an array", "*2\r\n:1\r\n:x\r\n", .init(.invalidInteger, at: 8)),
]

/// Parses `bytes` cut into `pieces`, with `append` and `next`: the values, and the error if any.
private func parse(
    _ pieces: [ArraySlice<UInt8>], limits: RESPParser.Limits = .default
) -> (values: [RESPValue], error: RESPParseError?) {
    var parser = RESPParser(limits: limits)
    var values: [RESPValue] = []
    do {
        for piece in pieces {
            parser.append(piece)
            while let value = try parser.next() { values.append(value) }
        }
        return (values, nil)
    } catch {
        return (values, error)
    }
}

/// `bytes` cut at every boundary into two pieces, and into single bytes.
private func everySplit(_ bytes: [UInt8]) -> [[ArraySlice<UInt8>]] {
    var splits = (0...bytes.count).map { cut in [bytes[..<cut], bytes[cut...]] }
    splits.append(bytes.indices.map { bytes[$0...$0] })
    return splits
}

@Suite("RESPParser")
struct RESPParserTests {
    @Test("parses every RESP2 type", arguments: wellFormed.indices)
    func parsesEveryType(_ index: Int) {
        let sample = wellFormed[index]
        let result = parse([Array(sample.bytes.utf8)[...]])
        #expect(result.error == nil, "\(sample.name)")
        #expect(result.values == sample.values, "\(sample.name)")
    }

    @Test("gives the same values however the bytes are split", arguments: wellFormed.indices)
    func sameValuesAtEverySplit(_ index: Int) {
        let sample = wellFormed[index]
        for pieces in everySplit(Array(sample.bytes.utf8)) {
            let result = parse(pieces)
            #expect(result.error == nil && result.values == sample.values, "\(sample.name) in \(pieces.count) pieces")
        }
    }

    @Test("refuses malformed input with what and where", arguments: malformed.indices)
    func refusesMalformedInput(_ index: Int) {
        let sample = malformed[index]
        let result = parse([Array(sample.bytes.utf8)[...]])
        #expect(result.error == sample.error, "\(sample.name): \(String(describing: result.error))")
    }

    @Test("gives the same error however the bytes are split", arguments: malformed.indices)
    func sameErrorAtEverySplit(_ index: Int) {
        let sample = malformed[index]
        for pieces in everySplit(Array(sample.bytes.utf8)) {
            let result = parse(pieces)
            #expect(
                result.error == sample.error,
                "\(sample.name) in \(pieces.count) pieces: \(String(describing: result.error))")
        }
    }

    @Test("returns the values before an error, then throws the error again and ignores more bytes")
    func errorIsSticky() throws {
        var parser = RESPParser()
        parser.append(Array("+OK\r\n:1\r\n!".utf8))
        #expect(try parser.next() == .simpleString("OK"))
        #expect(try parser.next() == .integer(1))
        let expected = RESPParseError(.unknownType(byte: UInt8(ascii: "!")), at: 9)
        #expect(throws: expected) { try parser.next() }
        parser.append(Array("+OK\r\n".utf8))
        #expect(throws: expected) { try parser.next() }
        #expect(throws: expected) { try parser.feed([]) }
    }

    @Test("limits the nesting of arrays")
    func limitsDepth() throws {
        let limits = try RESPParser.Limits(maximumDepth: 8)
        let eight = Array(String(repeating: "*1\r\n", count: 7).utf8) + Array("*0\r\n".utf8)
        #expect(parse([eight[...]], limits: limits).error == nil)
        let nine = Array(String(repeating: "*1\r\n", count: 8).utf8) + Array("*0\r\n".utf8)
        #expect(parse([nine[...]], limits: limits).error == RESPParseError(.nestingTooDeep(maximum: 8), at: 32))
        // The default, 64, holds against a deep attack without a stack overflow.
        let deep = Array(String(repeating: "*1\r\n", count: 100_000).utf8)
        #expect(parse([deep[...]]).error == RESPParseError(.nestingTooDeep(maximum: 64), at: 256))
    }

    @Test("limits a line's length, without waiting for its end")
    func limitsLines() throws {
        let limits = try RESPParser.Limits(maximumLineLength: 100)
        var parser = RESPParser(limits: limits)
        parser.append(Array("+".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100))
        #expect(try parser.next() == nil)
        parser.append([UInt8(ascii: "a")])
        #expect(throws: RESPParseError(.lineTooLong(maximum: 100), at: 0)) { try parser.next() }
        // Exactly at the limit is accepted.
        let atLimit = Array("+".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 100) + [13, 10]
        #expect(parse([atLimit[...]], limits: limits).values == [.simpleString(String(repeating: "b", count: 100))])
    }

    @Test("limits a bulk string's length and a value's size before reading them")
    func limitsSizes() throws {
        let limits = try RESPParser.Limits(maximumBulkStringLength: 10, maximumValueByteCount: 30)
        #expect(parse([Array("$10\r\n0123456789\r\n".utf8)[...]], limits: limits).error == nil)
        #expect(
            parse([Array("$11\r\n".utf8)[...]], limits: limits).error
                == RESPParseError(.bulkStringTooLong(length: 11, maximum: 10), at: 0))
        // 4 + 17 + 5 bytes so far, then a bulk string of 10 + 2 would take the array to 38 bytes.
        let array = "*3\r\n$10\r\n0123456789\r\n$10\r\n"
        #expect(
            parse([Array(array.utf8)[...]], limits: limits).error == RESPParseError(.valueTooLarge(maximum: 30), at: 21)
        )
        // The limit is per value: many small values are fine.
        let many = Array(String(repeating: "$10\r\n0123456789\r\n", count: 10).utf8)
        #expect(parse([many[...]], limits: limits).values.count == 10)
        // Limits at Int.max: a length of Int.max is refused, not added to (that would trap).
        let unlimited = try RESPParser.Limits(maximumBulkStringLength: .max, maximumValueByteCount: .max)
        #expect(
            parse([Array("$9223372036854775807\r\n".utf8)[...]], limits: unlimited).error
                == RESPParseError(.valueTooLarge(maximum: .max), at: 0))
    }

    @Test("takes a declared length on trust only as far as the bytes go")
    func declaredLengthsDoNotAllocate() throws {
        // 512 MiB declared, 3 bytes sent: nothing is set aside for the rest.
        var parser = RESPParser()
        parser.append(Array("$536870912\r\nabc".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.pendingByteCount == 15)
        // 16 Mi elements declared, none sent.
        var arrays = RESPParser()
        arrays.append(Array("*16777216\r\n".utf8))
        #expect(try arrays.next() == nil)
    }

    @Test("refuses limits below their minimums, naming them")
    func refusesBadLimits() {
        #expect(
            throws: InvalidValueError(field: "RESPParser.Limits.maximumDepth", value: "0", requirement: "at least 1")
        ) {
            try RESPParser.Limits(maximumDepth: 0)
        }
        #expect(
            throws: InvalidValueError(
                field: "RESPParser.Limits.maximumBulkStringLength", value: "-1", requirement: "at least 0")
        ) {
            try RESPParser.Limits(maximumBulkStringLength: -1)
        }
        #expect(throws: InvalidValueError.self) { try RESPParser.Limits(maximumLineLength: 20) }
        #expect(throws: InvalidValueError.self) { try RESPParser.Limits(maximumValueByteCount: 2) }
    }

    @Test("feed reports how many of the given bytes ended values")
    func feedReportsConsumedBytes() throws {
        var parser = RESPParser()
        let first = try parser.feed(Array("+OK\r\n:1".utf8))
        #expect(first.values == [.simpleString("OK")])
        #expect(first.consumedByteCount == 5)
        #expect(parser.pendingByteCount == 2)
        let second = try parser.feed(Array("2\r\n$1\r\n".utf8))
        #expect(second.values == [.integer(12)])
        #expect(second.consumedByteCount == 3)
        #expect(parser.pendingByteCount == 4)
        let third = try parser.feed(Array("x\r\n".utf8))
        #expect(third.values == [.bulkString([UInt8(ascii: "x")])])
        #expect(third.consumedByteCount == 3)
        #expect(parser.pendingByteCount == 0)
        #expect(parser.receivedByteCount == 17)
    }

    @Test("decodes invalid UTF-8 in simple strings with replacement characters")
    func invalidUTF8InLines() {
        let bytes: [UInt8] = [UInt8(ascii: "+"), 0xFF, 0x41, 13, 10]
        #expect(parse([bytes[...]]).values == [.simpleString("\u{FFFD}A")])
    }

    @Test("describes errors with their offset")
    func describesErrors() {
        let error = RESPParseError(.negativeLength(-5), at: 12)
        #expect(
            error.description
                == "Invalid RESP at byte 12: a length of -5 is negative (only -1, meaning null, is allowed)")
    }

    @Test("parses a 1 MiB bulk string arriving in 1 KiB pieces")
    func largeBulkStringInPieces() throws {
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let bytes = Array("$\(payload.count)\r\n".utf8) + payload + [13, 10]
        var parser = RESPParser()
        var values: [RESPValue] = []
        for start in stride(from: 0, to: bytes.count, by: 1024) {
            parser.append(bytes[start..<min(bytes.count, start + 1024)])
            while let value = try parser.next() { values.append(value) }
        }
        #expect(values == [.bulkString(payload)])
    }
}
