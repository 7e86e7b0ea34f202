import Foundation
import HoardSystem

/// The record codec every tier that keeps bytes shares: a ``Header`` (type tag, dates, the full
/// key and two CRC-32C checksums) followed by the value's bytes, one self-checking run.
///
/// Invariant: bytes that ``verify(_:expectedKey:)`` accepts are exactly what ``encode(header:payload:)``
/// wrote for that key; anything damaged, truncated, stored under another key or written by
/// something else is refused, so a tier drops it instead of returning it.
///
/// The disk tier keeps records inside its index, in segment files and in files of their own (see
/// <doc:DiskFormat>); the Redis tier keeps one as each key's string value. A ``CacheTier`` of your
/// own can do the same, so that what its store hands back is checked, not trusted:
///
/// ```swift
/// func store(_ entry: CacheTierEntry, forKey key: String) async throws {
///     guard let record = CacheRecord.encode(entry, forKey: key) else { return }  // key too long
///     try await blobStore.put(record, at: name(for: key))
/// }
/// func entry(forKey key: String) async throws -> CacheTierEntry? {
///     guard let bytes = try await blobStore.get(name(for: key)) else { return nil }
///     return try? CacheRecord.decode(bytes, forKey: key).get()  // damaged or another key's: a miss
/// }
/// ```
public enum CacheRecord {
    /// Why bytes are not a record for the key asked for.
    public enum Damage: Error, Sendable, Hashable, CustomStringConvertible {
        /// The header does not parse (wrong magic, version, checksum, or too few bytes).
        case header(String)
        /// A whole record, but for another key: a misplaced value or a hash collision.
        case otherKey
        /// The length the header declares is not the length of the bytes.
        case lengthMismatch(expected: Int, actual: Int)
        /// The value's bytes do not match their checksum.
        case payloadChecksumMismatch(stored: UInt32, computed: UInt32)

        /// What is wrong, in a sentence for a log.
        public var description: String {
            switch self {
            case .header(let reason): "not a cache record: \(reason)"
            case .otherKey: "a record for another key (hash collision or misplaced record)"
            case .lengthMismatch(let expected, let actual): "record is \(actual) bytes, its header says \(expected)"
            case .payloadChecksumMismatch(let stored, let computed):
                "payload checksum mismatch (stored \(stored), computed \(computed))"
            }
        }
    }

    /// The record of `payload` under `header`, whose payload checksum is computed here: the
    /// header as written, then the record's bytes.
    ///
    /// - Complexity: O(n) in the key and the payload (one checksum pass, one copy).
    static func encode(header: Header, payload: Data) -> (header: Header, bytes: [UInt8]) {
        var header = header
        var checksum = CRC32C()
        payload.withUnsafeBytes { checksum.update($0) }
        header.payloadChecksum = checksum.value
        var bytes = header.encoded()
        bytes.reserveCapacity(header.fileByteCount)
        bytes.append(contentsOf: payload)
        return (header, bytes)
    }

    /// Checks a whole record: its header parses, holds `expectedKey` (when given), gives the
    /// record's length, and the payload's checksum matches.
    ///
    /// - Returns: The verified header; the payload is the bytes after its ``Header/byteCount``.
    /// - Complexity: O(n) in the record (one checksum pass).
    static func verify(_ record: UnsafeRawBufferPointer, expectedKey: String?) -> Result<Header, Damage> {
        let header: Header
        switch Header.parse(record, expectedKey: expectedKey) {
        case .success(let parsed): header = parsed
        case .failure(let error): return .failure(.header(error.description))
        }
        guard header.fileByteCount == record.count else {
            return .failure(.lengthMismatch(expected: header.fileByteCount, actual: record.count))
        }
        if let expectedKey, ExactString(header.key) != ExactString(expectedKey) { return .failure(.otherKey) }
        var checksum = CRC32C()
        checksum.update(UnsafeRawBufferPointer(rebasing: record[header.byteCount...]))
        guard checksum.value == header.payloadChecksum else {
            return .failure(.payloadChecksumMismatch(stored: header.payloadChecksum, computed: checksum.value))
        }
        return .success(header)
    }

    /// The record of `entry` under `key`, or `nil` for a key longer than
    /// ``DiskCache/maximumKeyByteCount`` bytes.
    ///
    /// - Complexity: O(n) in the key and the value (one checksum pass, one copy).
    public static func encode(_ entry: CacheTierEntry, forKey key: String) -> [UInt8]? {
        guard key.utf8.count <= DiskCache.maximumKeyByteCount else { return nil }
        let header = Header(
            key: key, creationDate: entry.createdAt, expirationDate: entry.expiresAt,
            payloadByteCount: entry.bytes.count, payloadChecksum: 0)
        return encode(header: header, payload: entry.bytes).bytes
    }

    /// The entry in `bytes`, which must be a whole, intact record for `key`.
    ///
    /// - Returns: The entry, or the ``Damage`` that makes the bytes unusable: never a wrong value.
    /// - Complexity: O(n) in the record (one checksum pass, one copy of the value).
    public static func decode(_ bytes: [UInt8], forKey key: String) -> Result<CacheTierEntry, Damage> {
        bytes.withUnsafeBytes { buffer in
            verify(buffer, expectedKey: key).map { header in
                CacheTierEntry(
                    bytes: Data(copyingPayload: UnsafeRawBufferPointer(rebasing: buffer[header.byteCount...])),
                    createdAt: header.creationDate, expiresAt: header.expirationDate)
            }
        }
    }

    /// The key a record is stored for, read from its header alone (the value is not checked), or
    /// `nil` when the header does not parse.
    public static func key(of bytes: [UInt8]) -> String? {
        guard case .success(let header) = Header.parse(bytes) else { return nil }
        return header.key
    }
}

extension CacheRecord {
    /// A verified record: its header and its payload.
    struct Verified: Sendable {
        var header: Header
        var payload: Data
    }
}
