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
}
