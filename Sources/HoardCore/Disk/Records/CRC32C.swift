import CHoardSupport

/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), the checksum of disk cache entries.
///
/// The same checksum as iSCSI, ext4 metadata, Btrfs and LevelDB/RocksDB blocks: it detects every
/// error of up to 3 flipped bits and every burst up to 32 bits in files of the sizes a cache holds,
/// which is what a torn or bit-rotted file looks like. It is not a defence against someone who can
/// write into the cache directory (they could write a matching checksum as easily). Computed by
/// `hoard_crc32c_update` in C, by the fastest path the CPU has: on x86-64 with VPCLMULQDQ,
/// carry-less multiplication folding 64-byte lanes (AVX-512) or 32-byte lanes (AVX2) for inputs of
/// 256 bytes or more; else the CRC32C instruction (SSE4.2, ARMv8 CRC) over three interleaved
/// streams; else a slicing-by-8 table. Their speeds are in the DocC article "Measurements behind the
/// design" ("Figures behind the source's choices").
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
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        state = hoard_crc32c_update(state, buffer.baseAddress, buffer.count)
    }
}
