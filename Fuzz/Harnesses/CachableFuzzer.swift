// libFuzzer harness: bytes as a cached value, the way Hoard reads one back from disk: unwrap the
// typed payload, then decode it as String and as Codable types (a struct, a dictionary, an array,
// scalars). Every decode either returns a value that survives encode-then-decode unchanged or
// throws CachableError; nothing else, and never a crash.
import Foundation

@testable import HoardCore

/// A Codable value with the shapes JSON decoding has to handle: nesting, optionals, an enum,
/// arrays, a dictionary, a date and bytes.
struct FuzzProfile: Codable, Cachable, Equatable {
    enum Kind: String, Codable { case reader, writer, admin }
    struct Limits: Codable, Equatable {
        var daily: Int
        var ratio: Double?
    }
    var name: String
    var visits: Int
    var score: Double
    var tags: [String]
    var nested: [String: Limits]?
    var kind: Kind
    var when: Date?
    var blob: Data?
    var optional: UInt8?

    static var cacheTypeIdentifier: String { "HoardFuzz.FuzzProfile" }
}

@_cdecl("LLVMFuzzerInitialize")
public func cachableFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    FuzzSupport.writeSeedsIfAsked(writeSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func cachableFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = Data(UnsafeRawBufferPointer(start: start, count: count))
    checkString(data)
    checkRoundTrip(FuzzProfile.self, data)
    checkRoundTrip([String: Double].self, data)
    checkRoundTrip([Int].self, data)
    checkRoundTrip(Int.self, data)
    checkRoundTrip(Double.self, data)
    checkRoundTrip(Bool.self, data)
    // What Hoard stores on disk: a 2-byte big-endian name length, the type name, the value's bytes.
    let unwrapped = TypedPayload.unwrap(data)
    let nameLength = data.count >= 2 ? Int(data[data.startIndex]) << 8 | Int(data[data.startIndex + 1]) : -1
    let wellFormed =
        nameLength >= 0 && data.count >= 2 + nameLength
        && String(validating: data.dropFirst(2).prefix(nameLength), as: UTF8.self) != nil
    FuzzSupport.check(
        (unwrapped != nil) == wellFormed, "typed payload accepted: \(unwrapped != nil), expected \(wellFormed)")
    if let (typeName, payload) = unwrapped {
        FuzzSupport.check(TypedPayload.wrap(payload, typeName: typeName) == data, "typed payload does not re-wrap")
        checkString(payload)
        checkRoundTrip(FuzzProfile.self, payload)
    }
    return 0
}

/// `String.decode` accepts exactly the valid UTF-8, and reports where invalid bytes start.
private func checkString(_ data: Data) {
    do {
        let string = try String.decode(data)
        FuzzSupport.check(String(validating: data, as: UTF8.self) == string, "decoded a string the validator refuses")
        let encoded = try string.encode()
        FuzzSupport.check(encoded == data, "string does not re-encode to its bytes")
    } catch CachableError.invalidUTF8(let offset, let byteCount) {
        FuzzSupport.check(String(validating: data, as: UTF8.self) == nil, "refused valid UTF-8")
        FuzzSupport.check(byteCount == data.count, "byte count \(byteCount) of \(data.count)")
        FuzzSupport.check(offset >= 0 && offset < data.count, "invalid offset \(offset) of \(data.count)")
        FuzzSupport.check(
            String(validating: data.prefix(offset), as: UTF8.self) != nil, "bytes before offset \(offset) are invalid")
    } catch {
        FuzzSupport.fail("String.decode threw \(error)")
    }
}

/// Decoding throws only `CachableError.decodingFailed` naming the type; a value it returns
/// encodes to bytes that decode to the same value, and encode again to the same bytes.
private func checkRoundTrip<Value: Cachable & Codable & Equatable>(_ type: Value.Type, _ data: Data) {
    let value: Value
    do {
        value = try Value.decode(data)
    } catch CachableError.decodingFailed(let typeName, let reason) {
        FuzzSupport.check(typeName == String(reflecting: Value.self), "error names \(typeName)")
        FuzzSupport.check(!reason.isEmpty, "decoding failed without a reason")
        return
    } catch {
        FuzzSupport.fail("\(Value.self).decode threw \(error)")
    }
    do {
        let encoded = try value.encode()
        let again = try Value.decode(encoded)
        FuzzSupport.check(again == value, "\(Value.self) changed in a round trip: \(value) vs \(again)")
        let reencoded = try again.encode()
        FuzzSupport.check(reencoded == encoded, "\(Value.self) encoding is not stable")
    } catch {
        FuzzSupport.fail("\(Value.self) decoded from the input does not round-trip: \(error)")
    }
}

// MARK: - Seeds

/// What the encoders write for a few values of each type, bare and as Hoard's typed payloads,
/// and strings in several scripts (one of them not UTF-8).
private func writeSeeds(to folder: URL) throws -> Int {
    let profiles = [
        FuzzProfile(
            name: "Ada", visits: 3, score: 0.5, tags: ["math", "engines"],
            nested: ["home": .init(daily: 10, ratio: 0.25), "work": .init(daily: -1, ratio: nil)], kind: .admin,
            when: Date(timeIntervalSinceReferenceDate: 800_000_000), blob: Data([0, 1, 2, 255]), optional: 7),
        FuzzProfile(
            name: "", visits: Int.min, score: -1e308, tags: [], nested: nil, kind: .reader, when: nil, blob: nil,
            optional: nil),
        FuzzProfile(
            name: "ключ 🔑 \u{0} \"quoted\"\n", visits: Int.max, score: 5e-324, tags: ["", "\u{FFFD}"], nested: [:],
            kind: .writer, when: Date(timeIntervalSinceReferenceDate: -1e9), blob: Data(), optional: 255),
    ]
    var seeds: [Data] = []
    for profile in profiles {
        let encoded = try profile.encode()
        seeds += [encoded, TypedPayload.wrap(encoded, typeName: FuzzProfile.cacheTypeIdentifier)]
    }
    seeds.append(try ["pi": 3.14159, "e": 2.71828, "zero": -0.0].encode())
    seeds.append(try [1, -2, 3_000_000_000, Int.max].encode())
    seeds += [try 42.encode(), try 1.5e-7.encode(), try true.encode()]
    for text in ["hello", "ключ 🔑", "日本語のテキスト", "e\u{301} and \u{1F469}\u{200D}\u{1F4BB}", ""] {
        let encoded = try text.encode()
        seeds += [encoded, TypedPayload.wrap(encoded, typeName: String.cacheTypeIdentifier)]
    }
    seeds.append(Data([0x68, 0x69, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80]))  // invalid UTF-8
    for (index, seed) in seeds.enumerated() {
        try seed.write(to: folder.appendingPathComponent("value-\(index)"))
    }
    return seeds.count
}
