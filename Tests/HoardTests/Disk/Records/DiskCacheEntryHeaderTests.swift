import Foundation
import Testing

@testable import HoardCore

@Suite("CacheRecord.Header")
struct DiskCacheEntryHeaderTests {
    typealias Header = CacheRecord.Header

    static let samples: [Header] = [
        Header(
            key: "k", creationDate: Date(timeIntervalSinceReferenceDate: 0), expirationDate: nil,
            payloadByteCount: 0, payloadChecksum: 0),
        Header(
            key: "thumb:https://example.com/a.jpg?size=128", creationDate: Date(timeIntervalSinceReferenceDate: 7.25e8),
            expirationDate: Date(timeIntervalSinceReferenceDate: 7.26e8), payloadByteCount: 12_345,
            payloadChecksum: 0xDEAD_BEEF),
        Header(
            key: "", creationDate: Date(timeIntervalSinceReferenceDate: -1.5), expirationDate: .distantFuture,
            payloadByteCount: Int(Int32.max), payloadChecksum: 1),
        Header(
            key: "ключ \u{0} 🗝️", creationDate: Date(timeIntervalSinceReferenceDate: 0.000_123),
            expirationDate: Date(timeIntervalSinceReferenceDate: 1e9), payloadByteCount: 1, payloadChecksum: 42),
    ]

    @Test("Encoding then parsing gives the same header, dates exactly", arguments: samples)
    func roundTrip(header: Header) throws {
        let bytes = header.encoded()
        #expect(bytes.count == header.byteCount)
        #expect(Array(bytes.prefix(8)) == Header.magic)
        let parsed = try Header.parse(bytes).get()
        #expect(parsed == header)
        // Trailing payload bytes do not matter to the header.
        #expect(try Header.parse(bytes + [1, 2, 3]).get() == header)
    }

    @Test("Every truncation is reported as truncated, with the length needed")
    func truncations() {
        let bytes = Self.samples[1].encoded()
        for length in 0..<bytes.count {
            guard case .failure(.truncated(let required)) = Header.parse(Array(bytes.prefix(length))) else {
                Issue.record("prefix of \(length) bytes did not report truncation")
                continue
            }
            #expect(required > length && required <= bytes.count)
        }
    }

    @Test("Every single flipped bit is rejected")
    func flippedBits() {
        let bytes = Self.samples[1].encoded()
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                if case .success(let header) = Header.parse(damaged) {
                    Issue.record("flip of bit \(bit) at byte \(index) parsed as \(header)")
                }
            }
        }
    }

    @Test("Specific defects have specific reasons")
    func reasons() {
        var bytes = Self.samples[1].encoded()
        bytes[0] = 0
        #expect(Header.parse(bytes) == .failure(.badMagic))
        bytes = Self.samples[1].encoded()
        bytes[8] = 2
        #expect(Header.parse(bytes) == .failure(.unsupportedVersion(2)))
        bytes = Self.samples[1].encoded()
        bytes[10] |= 4
        #expect(Header.parse(bytes) == .failure(.unknownFlags(5)))
        bytes = Self.samples[1].encoded()
        bytes.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Header.parse(bytes) == .failure(.keyTooLong(byteCount: Int(UInt32.max))))
        bytes = Self.samples[1].encoded()
        bytes.replaceSubrange(16..<24, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init))
        #expect(Header.parse(bytes) == .failure(.invalidDate))
        bytes = Self.samples[1].encoded()
        bytes.replaceSubrange(32..<40, with: [UInt8](repeating: 0xFF, count: 8))
        #expect(Header.parse(bytes) == .failure(.payloadTooLong))
        bytes = Self.samples[1].encoded()
        bytes[bytes.count - 1] ^= 0x20
        #expect(Header.parse(bytes) == .failure(.headerChecksumMismatch))
    }

    @Test("Random and adversarial bytes never trap")
    func randomInputs() {
        var generator = SystemRandomNumberGenerator()
        let valid = Self.samples[3].encoded()
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            }
            // A header with a valid magic and version but garbage beyond it is the interesting case.
            if round % 5 == 0, bytes.count >= 10 {
                bytes.replaceSubrange(0..<10, with: Header.magic + [1, 0])
            }
            _ = Header.parse(bytes)
        }
        // Reaching here without a trap is the test; an intact header still parses.
        #expect((try? Header.parse(valid).get()) == Self.samples[3])
    }

    @Test("A key that is not UTF-8 is rejected even with a matching checksum")
    func invalidUTF8Key() {
        var bytes = Header(
            key: "ab", creationDate: Date(), expirationDate: nil, payloadByteCount: 0, payloadChecksum: 0
        )
        .encoded()
        bytes[48] = 0xFF
        var crc = CRC32C()
        crc.update(bytes[0..<44])
        crc.update(bytes[48...])
        bytes.replaceSubrange(44..<48, with: withUnsafeBytes(of: crc.value.littleEndian, Array.init))
        #expect(Header.parse(bytes) == .failure(.keyNotUTF8))
    }
}
