import Foundation

/// An entry as one self-checking run of bytes: the disk entry's header (type tag, dates, the
/// full key and two CRC-32C checksums, see ``DiskCache/Entry``) followed by the value's bytes.
///
/// What a tier keeps when its storage is a plain value per key (a Redis string): a record that
/// was damaged, truncated, stored under another key or written by something else does not
/// decode, so the tier can drop it instead of returning it.
package enum CacheRecord {
    /// Why bytes are not a record for the key asked for.
    package enum Damage: Error, Sendable, Hashable, CustomStringConvertible {
        /// The header does not parse (wrong magic, version, checksum, or too few bytes).
        case header(String)
        /// A whole record, but for another key: a misplaced value or a hash collision.
        case otherKey
        /// The length the header declares is not the length of the bytes.
        case lengthMismatch(expected: Int, actual: Int)
        /// The value's bytes do not match their checksum.
        case payloadChecksumMismatch

        package var description: String {
            switch self {
            case .header(let reason): "not a cache record: \(reason)"
            case .otherKey: "a record for another key"
            case .lengthMismatch(let expected, let actual): "record is \(actual) bytes, its header says \(expected)"
            case .payloadChecksumMismatch: "value checksum mismatch"
            }
        }
    }

    /// The record of `entry` under `key`, or `nil` for a key longer than
    /// ``DiskCache/maximumKeyByteCount`` bytes.
    ///
    /// - Complexity: O(n) in the key and the value (one checksum pass, one copy).
    package static func encode(_ entry: CacheTierEntry, forKey key: String) -> [UInt8]? {
        guard key.utf8.count <= DiskCache.maximumKeyByteCount else { return nil }
        var payloadChecksum = CRC32C()
        entry.bytes.withUnsafeBytes { payloadChecksum.update($0) }
        let header = DiskCache.Entry.Header(
            key: key, creationDate: entry.createdAt, expirationDate: entry.expiresAt,
            payloadByteCount: entry.bytes.count, payloadChecksum: payloadChecksum.value)
        var bytes = header.encoded()
        bytes.reserveCapacity(header.fileByteCount)
        bytes.append(contentsOf: entry.bytes)
        return bytes
    }

    /// The entry in `bytes`, which must be a whole, intact record for `key`.
    ///
    /// - Complexity: O(n) in the record (one checksum pass, one copy of the value).
    package static func decode(_ bytes: [UInt8], forKey key: String) -> Result<CacheTierEntry, Damage> {
        bytes.withUnsafeBytes { buffer in
            let header: DiskCache.Entry.Header
            switch DiskCache.Entry.Header.parse(buffer) {
            case .success(let parsed): header = parsed
            case .failure(let error): return .failure(.header(error.description))
            }
            guard header.key == key else { return .failure(.otherKey) }
            guard buffer.count == header.fileByteCount else {
                return .failure(.lengthMismatch(expected: header.fileByteCount, actual: buffer.count))
            }
            let payload = UnsafeRawBufferPointer(rebasing: buffer[header.byteCount...])
            var checksum = CRC32C()
            checksum.update(payload)
            guard checksum.value == header.payloadChecksum else { return .failure(.payloadChecksumMismatch) }
            return .success(
                CacheTierEntry(
                    bytes: Data(copyingPayload: payload), createdAt: header.creationDate,
                    expiresAt: header.expirationDate))
        }
    }

    /// The key a record is stored for, read from its header alone (the value is not checked), or
    /// `nil` when the header does not parse.
    package static func key(of bytes: [UInt8]) -> String? {
        guard case .success(let header) = DiskCache.Entry.Header.parse(bytes) else { return nil }
        return header.key
    }
}
