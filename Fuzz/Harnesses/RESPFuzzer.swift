// libFuzzer harness: bytes as a RESP2 stream from a Redis server the client does not trust, fed to
// RESPParser the way the client feeds it (append, then next until nil). Each input is parsed
// whole, in pieces cut where a generator seeded by the input's hash says, and (for short inputs)
// one byte at a time: the three must give the same values and the same error. The limits are
// the defaults for most inputs and tight ones for some (picked from the hash), so that every
// limit's check runs. Every value must respect the limits, re-encode with RESPEncoder to bytes
// that parse back to it, and encode the same way twice; `feed` must never report more bytes
// consumed than it was given; an error's offset lies within the bytes given.
//
// Compiled as one module with Sources/HoardRESP/Protocol/*.swift, Sources/HoardSystem/InvalidValueError.swift
// and FuzzSupport.swift (no import: those files depend on the standard library only).
//
// With HOARD_FUZZ_WRITE_SEEDS=<folder>, it writes RESP replies of the kinds Redis sends into that
// folder instead (the seed corpus), and exits.
import Foundation

@_cdecl("LLVMFuzzerInitialize")
public func respFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    FuzzSupport.writeSeedsIfAsked(writeSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func respFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let hash = bytes.withUnsafeBytes { FuzzSupport.hash($0) }
    let limits = pickLimits(hash)

    let whole = parse(bytes, cuts: [], limits: limits)
    check(whole, within: bytes.count, limits: limits)

    var generator = SplitMix64(seed: UInt64(hash))
    let cutCount = bytes.isEmpty ? 0 : Int(generator.next() % 16) + 1
    let cuts = (0..<cutCount).map { _ in Int(generator.next() % UInt64(bytes.count + 1)) }.sorted()
    let pieces = parse(bytes, cuts: cuts, limits: limits)
    FuzzSupport.check(
        pieces.values == whole.values && pieces.error == whole.error,
        "cut at \(cuts): \(pieces.values.count) values, \(String(describing: pieces.error)); whole: "
            + "\(whole.values.count) values, \(String(describing: whole.error))")
    if bytes.count <= 1024 {
        let single = parse(bytes, cuts: Array(bytes.indices), limits: limits)
        FuzzSupport.check(
            single.values == whole.values && single.error == whole.error,
            "byte by byte: \(String(describing: single.error)); whole: \(String(describing: whole.error))")
    }
    checkFeed(bytes, cuts: cuts, limits: limits, expected: whole)
    for value in whole.values { checkRoundTrip(value) }
    return 0
}

/// The default limits for 3 inputs in 4; tight ones for the rest, so that every limit is hit.
private func pickLimits(_ hash: UInt32) -> RESPParser.Limits {
    guard hash & 3 == 0 else { return .default }
    do {
        return try RESPParser.Limits(
            maximumBulkStringLength: Int(hash >> 2 & 0xFF), maximumArrayLength: Int(hash >> 10 & 0x1F),
            maximumDepth: Int(hash >> 15 & 0x7) + 1, maximumLineLength: 21 + Int(hash >> 18 & 0x3F),
            maximumValueByteCount: 3 + Int(hash >> 24 & 0xFF) * 4)
    } catch {
        FuzzSupport.fail("limits refused: \(error)")
    }
}

private struct Outcome {
    var values: [RESPValue] = []
    var error: RESPParseError?
}

/// Parses `bytes` cut at `cuts` (offsets, sorted) with `append` and `next`, as the client does.
private func parse(_ bytes: [UInt8], cuts: [Int], limits: RESPParser.Limits) -> Outcome {
    var parser = RESPParser(limits: limits)
    var outcome = Outcome()
    var start = 0
    do {
        for end in cuts + [bytes.count] where end >= start {
            parser.append(bytes[start..<end])
            start = end
            while let value = try parser.next() { outcome.values.append(value) }
            FuzzSupport.check(
                parser.pendingByteCount >= 0 && parser.pendingByteCount <= parser.receivedByteCount,
                "pending \(parser.pendingByteCount) of \(parser.receivedByteCount)")
        }
        FuzzSupport.check(
            parser.receivedByteCount == bytes.count, "received \(parser.receivedByteCount) of \(bytes.count)")
    } catch {
        outcome.error = error
        // The error is sticky.
        FuzzSupport.check((try? parser.next()) == nil, "a value after an error")
        do {
            _ = try parser.next()
            FuzzSupport.fail("no error after an error")
        } catch let again {
            FuzzSupport.check(again == error, "a different error after \(error): \(again)")
        }
    }
    return outcome
}

/// Values within the limits, an error within the bytes given.
private func check(_ outcome: Outcome, within byteCount: Int, limits: RESPParser.Limits) {
    if let error = outcome.error {
        FuzzSupport.check(error.offset >= 0 && error.offset < byteCount, "error offset \(error.offset) of \(byteCount)")
    }
    for value in outcome.values { checkLimits(value, depth: 0, limits: limits) }
}

private func checkLimits(_ value: RESPValue, depth: Int, limits: RESPParser.Limits) {
    switch value {
    case .bulkString(let bytes?):
        FuzzSupport.check(bytes.count <= limits.maximumBulkStringLength, "bulk string of \(bytes.count)")
    case .array(let elements?):
        FuzzSupport.check(depth < limits.maximumDepth, "arrays nested \(depth + 1) deep")
        FuzzSupport.check(elements.count <= limits.maximumArrayLength, "array of \(elements.count)")
        for element in elements { checkLimits(element, depth: depth + 1, limits: limits) }
    default:
        break
    }
}

/// `feed` gives the same values (or error) and never reports more bytes consumed than given.
private func checkFeed(_ bytes: [UInt8], cuts: [Int], limits: RESPParser.Limits, expected: Outcome) {
    var parser = RESPParser(limits: limits)
    var values: [RESPValue] = []
    var start = 0
    do {
        for end in cuts + [bytes.count] where end >= start {
            let output = try parser.feed(bytes[start..<end])
            FuzzSupport.check(
                output.consumedByteCount >= 0 && output.consumedByteCount <= end - start,
                "consumed \(output.consumedByteCount) of \(end - start)")
            FuzzSupport.check(output.values.isEmpty || output.consumedByteCount > 0, "values from no bytes")
            values += output.values
            start = end
        }
        FuzzSupport.check(
            expected.error == nil, "feed accepted what next refused: \(String(describing: expected.error))")
        FuzzSupport.check(values == expected.values, "feed gave other values")
    } catch {
        FuzzSupport.check(error == expected.error, "feed threw \(error), next \(String(describing: expected.error))")
        FuzzSupport.check(
            expected.values.starts(with: values), "feed gave values that next did not")
    }
}

/// A value re-encodes to bytes that parse to it, and encodes the same way again.
private func checkRoundTrip(_ value: RESPValue) {
    let encoded = RESPEncoder.encode(value)
    do {
        // Replacement characters can make lines longer than they were (1 invalid byte → 3 bytes).
        var parser = RESPParser(limits: try RESPParser.Limits(maximumLineLength: 1 << 22))
        parser.append(encoded)
        let again = try parser.next()
        FuzzSupport.check(again == value, "\(value.summary) does not survive encode-then-parse")
        FuzzSupport.check(parser.pendingByteCount == 0, "bytes left after re-parsing")
        FuzzSupport.check(again.map(RESPEncoder.encode) == encoded, "encoding is not stable")
    } catch {
        FuzzSupport.fail("the encoding of \(value.summary) does not parse: \(error)")
    }
}

/// SplitMix64: cuts derived from the input's hash, so a crash reproduces.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Seeds

/// Replies of every kind Redis sends to the client's commands, alone and pipelined.
private func writeSeeds(to folder: URL) throws -> Int {
    let replies: [RESPValue] = [
        .simpleString("OK"), .simpleString("PONG"), .error("ERR unknown command 'FOO', with args beginning with: "),
        .error("WRONGPASS invalid username-password pair or user is disabled."),
        .error("NOSCRIPT No matching script. Please use EVAL."),
        .error("OOM command not allowed when used memory > 'maxmemory'."), .integer(0), .integer(-2),
        .integer(.max), .integer(.min), .bulkString(nil), .bulkString([]), .bulkString(Array(0...255)),
        .bulkString(Array("# Server\r\nredis_version:7.0.15\r\n".utf8)), .array(nil), .array([]),
        .array([.bulkString(Array("17".utf8)), .array([.bulkString(Array("thumb:1".utf8)), .bulkString([0, 255])])]),
        .array([.integer(1), .array([.array([.simpleString("nested")])]), .bulkString(nil), .error("ERR in table")]),
    ]
    var seeds = replies.map { RESPEncoder.encode($0) }
    seeds.append(replies.flatMap { RESPEncoder.encode($0) })
    seeds.append(RESPEncoder.encodeCommand(["SET", "key", RESPArgument([0, 13, 10]), "PX", RESPArgument(1500), "NX"]))
    seeds.append(Array("$536870912\r\nabc".utf8))
    seeds.append(Array(String(repeating: "*1\r\n", count: 70).utf8))
    seeds.append(Array("$-2\r\n:99999999999999999999\r\n+a\rb\r\n".utf8))
    for (index, seed) in seeds.enumerated() {
        try Data(seed).write(to: folder.appendingPathComponent("reply-\(index)"))
    }
    return seeds.count
}
