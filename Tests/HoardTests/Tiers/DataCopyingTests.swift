import Foundation
import Testing

@testable import HoardCore

@Suite("Copying payloads out of records")
struct DataCopyingTests {
    /// `hoard_copy_bytes` moves 64-byte blocks, then 8-byte words, then single bytes: lengths
    /// either side of each step, from every offset within a block, must come out byte for byte
    /// (a write past the end is AddressSanitizer's to catch, in CI's sanitizer pass).
    @Test("Every length and offset copies byte for byte")
    func copiesExactly() {
        var generator = SystemRandomNumberGenerator()
        let source = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        source.withUnsafeBytes { bytes in
            for offset in [0, 1, 7, 8, 50, 63, 64] {
                for length in [0, 1, 7, 8, 9, 63, 64, 65, 71, 72, 127, 128, 4096 + 3, 16_384, 65_536 + 77] {
                    let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
                    let copy = Data(copyingPayload: slice)
                    #expect(copy.count == length)
                    #expect(copy.elementsEqual(slice), "offset \(offset) length \(length)")
                }
            }
        }
    }

    @Test("A copy is its own: changing the source afterwards leaves it as it was")
    func copyIsIndependent() {
        var source = [UInt8](repeating: 7, count: 1000)
        let copy = source.withUnsafeBytes { Data(copyingPayload: UnsafeRawBufferPointer(rebasing: $0[100...])) }
        source.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 9) }
        #expect(copy.count == 900)
        #expect(copy.allSatisfy { $0 == 7 })
    }
}
