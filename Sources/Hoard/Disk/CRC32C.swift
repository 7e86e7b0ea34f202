/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), the checksum of disk cache entries.
///
/// The same checksum as iSCSI, ext4 metadata, Btrfs and LevelDB/RocksDB blocks: it detects every
/// error of up to 3 flipped bits and every burst up to 32 bits in files of the sizes a cache holds,
/// which is what a torn or bit-rotted file looks like. It is not a defence against someone who can
/// write into the cache directory (they could write a matching checksum as easily). Computed here in
/// portable Swift with the slicing-by-8 table method (8 KiB of tables, built once).
///
/// ```swift
/// var crc = CRC32C()
/// crc.update(Array("123456789".utf8))
/// crc.value  // 0xE3069283
/// ```
struct CRC32C: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// The checksum of everything passed to ``update(_:)`` so far.
    var value: UInt32 { ~state }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    /// The checksum of a byte sequence held contiguously (`[UInt8]`, `Data`).
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    /// Adds a contiguous (or, slower, any) sequence of bytes to the checksum.
    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if handled == nil {
            let table = Self.tables
            for byte in bytes {
                state = table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8)
            }
        }
    }

    /// Adds the bytes in `buffer` to the checksum.
    ///
    /// - Complexity: O(n), about one table lookup per byte.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        Self.tables.withUnsafeBufferPointer { table in
            var crc = state
            var index = 0
            let count = buffer.count
            while count - index >= 8 {
                let low = buffer.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian ^ crc
                let high = buffer.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
            state = crc
        }
    }

    /// Eight 256-entry tables: `tables[k * 256 + b]` is the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[byte]
            for slice in 1..<8 {
                crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
                tables[slice * 256 + byte] = crc
            }
        }
        return tables
    }()
}
