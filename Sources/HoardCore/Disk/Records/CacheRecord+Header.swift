import Foundation

extension CacheRecord {
    /// The header at the start of every record (an entry file, a segment's or the index's record, a
    /// Redis value): what is stored, when, until when, and how to check that the bytes are intact.
    ///
    /// Layout (integers little-endian, dates as IEEE 754 binary64 seconds since 2001-01-01 UTC,
    /// exactly `Date.timeIntervalSinceReferenceDate`):
    ///
    /// | offset | size | field |
    /// |---:|---:|---|
    /// | 0 | 8 | magic `89 48 44 43 0D 0A 1A 0A` (`\x89HDC\r\n\x1A\n`, in the manner of PNG's) |
    /// | 8 | 2 | format version, 1 |
    /// | 10 | 2 | flags: bit 0 set when an expiration date is present; other bits must be 0 |
    /// | 12 | 4 | key length *k* in bytes (UTF-8), at most ``DiskCache/maximumKeyByteCount`` |
    /// | 16 | 8 | creation date |
    /// | 24 | 8 | expiration date (0 when flag bit 0 is clear) |
    /// | 32 | 8 | payload length *n* in bytes |
    /// | 40 | 4 | CRC-32C of the payload |
    /// | 44 | 4 | CRC-32C of bytes 0..<44 followed by the key |
    /// | 48 | *k* | the key, UTF-8 |
    /// | 48 + *k* | *n* | the payload |
    ///
    /// A file is an intact entry only when the header parses, its checksum matches, the file is
    /// exactly 48 + *k* + *n* bytes long and the payload's checksum matches. Parsing checks every
    /// length against the bytes it was given before reading, so no input makes it trap.
    struct Header: Sendable, Hashable {
        static let magic: [UInt8] = [0x89, 0x48, 0x44, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
        static let formatVersion: UInt16 = 1
        /// Bytes before the key.
        static let fixedByteCount = 48
        static let expirationFlag: UInt16 = 1

        /// The full key, to tell a hash collision (or a misplaced file) from a hit.
        var key: String
        var creationDate: Date
        var expirationDate: Date?
        var payloadByteCount: Int
        var payloadChecksum: UInt32

        /// The header's own length: the fixed part and the key.
        var byteCount: Int { Self.fixedByteCount + key.utf8.count }
        /// The length of an intact file with this header.
        var fileByteCount: Int { byteCount + payloadByteCount }

        /// Why bytes are not a valid header.
        enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
            /// Fewer bytes than the header needs; with `requiredByteCount` bytes it may parse.
            case truncated(requiredByteCount: Int)
            case badMagic
            case unsupportedVersion(UInt16)
            case unknownFlags(UInt16)
            case keyTooLong(byteCount: Int)
            case invalidDate
            case payloadTooLong
            case headerChecksumMismatch
            case keyNotUTF8

            var description: String {
                switch self {
                case .truncated(let required): "header truncated (needs \(required) bytes)"
                case .badMagic: "not a disk cache entry (bad magic)"
                case .unsupportedVersion(let version): "unsupported format version \(version)"
                case .unknownFlags(let flags): "unknown header flags \(flags)"
                case .keyTooLong(let count): "key length \(count) exceeds the maximum"
                case .invalidDate: "invalid creation or expiration date"
                case .payloadTooLong: "payload length out of range"
                case .headerChecksumMismatch: "header checksum mismatch"
                case .keyNotUTF8: "key is not valid UTF-8"
                }
            }
        }

        /// The header's bytes: the fixed part followed by the key.
        ///
        /// - Complexity: O(key length).
        func encoded() -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(byteCount)
            bytes.append(contentsOf: Self.magic)
            append(Self.formatVersion, to: &bytes)
            append(expirationDate == nil ? UInt16(0) : Self.expirationFlag, to: &bytes)
            append(UInt32(truncatingIfNeeded: key.utf8.count), to: &bytes)
            append(creationDate.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
            append((expirationDate?.timeIntervalSinceReferenceDate ?? 0).bitPattern, to: &bytes)
            append(UInt64(payloadByteCount), to: &bytes)
            append(payloadChecksum, to: &bytes)
            var checksum = CRC32C()
            checksum.update(bytes)
            checksum.update(key.utf8)
            append(checksum.value, to: &bytes)
            bytes.append(contentsOf: key.utf8)
            return bytes
        }

        /// Parses a header from the start of `bytes` (which may go on into the payload).
        ///
        /// - Returns: the header, or why the bytes are not one; ``ParseError/truncated(requiredByteCount:)``
        ///   says how many bytes to read before trying again.
        /// - Parameter expectedKey: The key the reader looks for, if any: a header that holds it
        ///   takes that string for its key instead of checking and copying its bytes again (a
        ///   measurable share of a read through the manager; see the DocC article "Measurements behind
        ///   the design", "Instructions per store and read").
        /// - Complexity: O(key length).
        static func parse(_ bytes: UnsafeRawBufferPointer, expectedKey: String? = nil) -> Result<Header, ParseError> {
            guard bytes.count >= fixedByteCount else {
                return .failure(.truncated(requiredByteCount: fixedByteCount))
            }
            guard bytes.prefix(magic.count).elementsEqual(magic) else { return .failure(.badMagic) }
            let version = readLittleEndian(UInt16.self, from: bytes, at: 8)
            guard version == formatVersion else { return .failure(.unsupportedVersion(version)) }
            let flags = readLittleEndian(UInt16.self, from: bytes, at: 10)
            guard flags & ~expirationFlag == 0 else { return .failure(.unknownFlags(flags)) }
            let keyByteCount = Int(readLittleEndian(UInt32.self, from: bytes, at: 12))
            guard keyByteCount <= DiskCache.maximumKeyByteCount else {
                return .failure(.keyTooLong(byteCount: keyByteCount))
            }
            let creation = Double(bitPattern: readLittleEndian(UInt64.self, from: bytes, at: 16))
            let expiration = Double(bitPattern: readLittleEndian(UInt64.self, from: bytes, at: 24))
            guard creation.isFinite, expiration.isFinite else { return .failure(.invalidDate) }
            let payloadLength = readLittleEndian(UInt64.self, from: bytes, at: 32)
            guard payloadLength <= UInt64(Int.max / 2) else { return .failure(.payloadTooLong) }
            let payloadChecksum = readLittleEndian(UInt32.self, from: bytes, at: 40)
            let storedHeaderChecksum = readLittleEndian(UInt32.self, from: bytes, at: 44)

            let headerByteCount = fixedByteCount + keyByteCount
            guard bytes.count >= headerByteCount else {
                return .failure(.truncated(requiredByteCount: headerByteCount))
            }
            let keyBytes = UnsafeRawBufferPointer(rebasing: bytes[fixedByteCount..<headerByteCount])
            var checksum = CRC32C()
            checksum.update(UnsafeRawBufferPointer(rebasing: bytes[0..<44]))
            checksum.update(keyBytes)
            guard checksum.value == storedHeaderChecksum else { return .failure(.headerChecksumMismatch) }
            let key: String
            if let expectedKey, Self.bytes(keyBytes, areUTF8Of: expectedKey) {
                key = expectedKey
            } else if let validated = String(validating: keyBytes, as: UTF8.self) {
                key = validated
            } else {
                return .failure(.keyNotUTF8)
            }
            return .success(
                Header(
                    key: key,
                    creationDate: Date(timeIntervalSinceReferenceDate: creation),
                    expirationDate: flags & expirationFlag == 0
                        ? nil : Date(timeIntervalSinceReferenceDate: expiration),
                    payloadByteCount: Int(payloadLength),
                    payloadChecksum: payloadChecksum
                ))
        }

        /// Parses a header from the start of `bytes`; see ``parse(_:)-(UnsafeRawBufferPointer)``.
        static func parse(_ bytes: [UInt8]) -> Result<Header, ParseError> {
            bytes.withUnsafeBytes { parse($0) }
        }

        /// Whether the entry has expired at `now` (an entry expiring exactly now has).
        func isExpired(at now: Date) -> Bool {
            guard let expirationDate else { return false }
            return expirationDate <= now
        }

        // MARK: - Private

        /// Whether `bytes` are `text`'s UTF-8, byte for byte.
        private static func bytes(_ bytes: UnsafeRawBufferPointer, areUTF8Of text: String) -> Bool {
            var text = text
            return text.withUTF8 { utf8 in
                guard utf8.count == bytes.count else { return false }
                guard let left = utf8.baseAddress, let right = bytes.baseAddress else { return true }  // both empty
                return memcmp(left, right, utf8.count) == 0
            }
        }

        private func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// Reads an integer after checking that it lies inside `bytes` (a failed check reads 0,
        /// which no caller reaches: each checks the length first).
        private static func readLittleEndian<Integer: FixedWidthInteger>(
            _ type: Integer.Type, from bytes: UnsafeRawBufferPointer, at offset: Int
        ) -> Integer {
            guard offset >= 0, offset <= bytes.count - MemoryLayout<Integer>.size else { return 0 }
            return Integer(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
        }
    }
}
