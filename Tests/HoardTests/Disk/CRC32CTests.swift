import CHoardCodecs
import Foundation
import Testing

@testable import Hoard

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
                let portable = slice.withUnsafeBytes {
                    ~hoard_crc32c_update_portable(0xFFFF_FFFF, $0.baseAddress, $0.count)
                }
                #expect(portable == reference(slice), "table path, offset \(offset) length \(length)")
            }
        }
        // On this machine's CPU, the path taken is reported (x86-64 has SSE4.2 almost everywhere).
        print("CRC-32C hardware accelerated: \(hoard_crc32c_is_hardware_accelerated() == 1)")
    }
}
