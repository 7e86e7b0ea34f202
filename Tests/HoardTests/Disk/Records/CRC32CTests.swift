import CHoardSupport
import Foundation
import Testing

@testable import HoardCore

@Suite("CRC32C")
struct CRC32CTests {
    @Test("Known vectors (RFC 3720 and the classic check value)")
    func knownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
    }

    @Test("Incremental updates, any split, equal the one-shot checksum", arguments: [0, 1, 7, 8, 9, 63, 500])
    func incremental(split: Int) {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var crc = CRC32C()
        crc.update(bytes[..<split])
        crc.update(bytes[split...])
        #expect(crc.value == CRC32C.checksum(bytes))
        #expect(crc.value == bytes.withUnsafeBytes { CRC32C.checksum($0) })
        #expect(crc.value == CRC32C.checksum(Data(bytes)))
    }

    @Test("The accelerated path agrees with a bit-by-bit reference at every length and alignment")
    func matchesBitwiseReference() {
        func reference(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for offset in 0..<9 {
            for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 64, 100, 255, 291] {
                let slice = bytes[offset..<(offset + length)]
                #expect(CRC32C.checksum(slice) == reference(slice), "offset \(offset) length \(length)")
                let portable = ~Self.update(slice, path: HOARD_CRC_PATH_TABLE)
                #expect(portable == reference(slice), "table path, offset \(offset) length \(length)")
            }
        }
        // The path this CPU takes is reported (x86-64 has SSE4.2 almost everywhere; folding needs
        // VPCLMULQDQ, with AVX2 or AVX-512).
        print("CRC-32C fastest path: \(Self.pathName(hoard_crc32c_best_path()))")
    }

    /// `hoard_crc32c_update` through one path (or the fastest this CPU has, if it lacks `path`).
    static func update(_ slice: ArraySlice<UInt8>, path: hoard_crc_path, from state: UInt32 = 0xFFFF_FFFF) -> UInt32 {
        slice.withUnsafeBytes { hoard_crc32c_update_path(Int32(path.rawValue), state, $0.baseAddress, $0.count) }
    }

    static func pathName(_ path: Int32) -> String {
        switch UInt32(path) {
        case HOARD_CRC_PATH_FOLDING_512.rawValue: "carry-less folding, 64-byte lanes"
        case HOARD_CRC_PATH_FOLDING_256.rawValue: "carry-less folding, 32-byte lanes"
        case HOARD_CRC_PATH_INSTRUCTION.rawValue: "CRC instruction"
        default: "table"
        }
    }

    /// The instruction path runs three streams over blocks of 3 × 8 KiB, then 3 × 256 B, and
    /// joins them; the folding paths take 256 bytes at a time (128 with 32-byte lanes), then a
    /// lane at a time, then 16 bytes, and hand the rest to the instruction path; the table path
    /// (checked bit by bit above) has no blocks.
    /// Lengths either side of every block boundary, at odd alignments, from states other than the
    /// initial one, and split mid-block, must agree on every path this CPU has.
    @Test(
        "Inputs of many blocks agree with the table path at every block boundary",
        arguments: [HOARD_CRC_PATH_INSTRUCTION, HOARD_CRC_PATH_FOLDING_256, HOARD_CRC_PATH_FOLDING_512])
    func blockedPathsAgreeWithTables(path: hoard_crc_path) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(1 << 20) + 64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let short = 3 * 256, long = 3 * 8192
        let lengths = [
            15, 16, 17, 63, 64, 65, 255, 256, 257, 271, 272, 287, 288, 289, 319, 320, 321, 383, 384, 385, 511,
            512, 513, short - 1, short, short + 1, short + 9, 2 * short, 16_384, long - 8, long, long + 1,
            long + short + 7, 65_536 + 13, 2 * long + 5 * short + 3, 100_003, 1 << 20,
        ]
        for offset in [0, 1, 5, 8] {
            for length in lengths {
                let slice = bytes[offset..<(offset + length)]
                let table = Self.update(slice, path: HOARD_CRC_PATH_TABLE)
                #expect(Self.update(slice, path: path) == table, "offset \(offset) length \(length)")
                for state: UInt32 in [0, 0x1234_5678] {
                    let expected = Self.update(slice, path: HOARD_CRC_PATH_TABLE, from: state)
                    #expect(
                        Self.update(slice, path: path, from: state) == expected,
                        "offset \(offset) length \(length) from \(state)")
                }
            }
        }
        let whole = Self.update(bytes[..<(1 << 20)], path: HOARD_CRC_PATH_TABLE)
        for split in [1, 255, 300, long / 3, long + 1, 500_000] {
            let first = Self.update(bytes[..<split], path: path)
            #expect(Self.update(bytes[split..<(1 << 20)], path: path, from: first) == whole, "split at \(split)")
        }
        #expect(CRC32C.checksum(bytes[..<(1 << 20)]) == ~whole)
    }
}
