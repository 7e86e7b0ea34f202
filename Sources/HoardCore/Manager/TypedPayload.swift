import Foundation

/// The bytes ``Hoard`` writes to disk for a value: the name of the value's Swift type, then the
/// value's own encoding. Reading checks the name, so bytes are never decoded as another type.
///
/// Layout: a 2-byte big-endian length `n`, `n` bytes of UTF-8 type name, the value's bytes.
enum TypedPayload {
    static func wrap(_ bytes: Data, typeName: String) -> Data {
        let name = Array(typeName.utf8.prefix(Int(UInt16.max)))
        var data = Data(capacity: 2 + name.count + bytes.count)
        data.append(UInt8(name.count >> 8))
        data.append(UInt8(name.count & 0xFF))
        data.append(contentsOf: name)
        data.append(bytes)
        return data
    }

    /// The layout above for a value of `byteCount` bytes that `fill` writes in place: the bytes
    /// are written once, into the buffer the tiers are given (no copy of a large value), and the
    /// value is a slice of it sharing its storage.
    ///
    /// - Throws: What `fill` throws.
    static func wrap(
        byteCount: Int, typeName: String, filling fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> (framed: Data, payload: Data) {
        let name = Array(typeName.utf8.prefix(Int(UInt16.max)))
        let tag = [UInt8(name.count >> 8), UInt8(name.count & 0xFF)] + name
        var data = Data(count: tag.count + byteCount)
        try data.withUnsafeMutableBytes { buffer in
            UnsafeMutableRawBufferPointer(rebasing: buffer[..<tag.count]).copyBytes(from: tag)
            try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[tag.count...]))
        }
        return (data, data[(data.startIndex + tag.count)...])
    }

    /// The type name and the value's bytes, or `nil` when `data` is not laid out as above.
    ///
    /// With `sharingStorage`, a payload of `Data.shortestSharedByteCount` bytes or more shares
    /// `data`'s storage instead of being copied: only for bytes nothing else holds (a disk read's
    /// own buffer, given to no other tier), since writing to the payload then writes to that storage.
    ///
    /// With `expected`, a name equal to it byte for byte is returned as `expected` itself: a read
    /// of the type it expects makes no new string.
    static func unwrap(
        _ data: Data, expecting expected: String? = nil, sharingStorage: Bool = false
    ) -> (typeName: String, payload: Data)? {
        // One pass over the bytes: a `Data` subscript per byte costs more than the rest of a small
        // disk hit's unwrapping.
        let name = data.withUnsafeBytes { bytes -> (name: String, byteCount: Int)? in
            guard bytes.count >= 2 else { return nil }
            let length = Int(bytes[0]) << 8 | Int(bytes[1])
            guard bytes.count >= 2 + length else { return nil }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[2..<(2 + length)])
            if let expected, Self.bytes(nameBytes, equal: expected) { return (expected, length) }
            return String(validating: nameBytes, as: UTF8.self).map { ($0, length) }
        }
        guard let name else { return nil }
        let payloadStart = data.startIndex + 2 + name.byteCount
        return (name.name, sharingStorage ? data.rebased(from: payloadStart) : Data(data[payloadStart...]))
    }

    /// The length of the type tag at the start of `bytes` when it names `expected`, else `nil`:
    /// what a disk read leaves out of the value it hands over (see
    /// ``DiskCache/entryIncludingExpired(forKey:now:droppingFraming:)``).
    static func tagByteCount(of bytes: UnsafeRawBufferPointer, naming expected: String) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length, Self.bytes(UnsafeRawBufferPointer(rebasing: bytes[2..<(2 + length)]), equal: expected)
        else { return nil }
        return 2 + length
    }

    /// Whether `bytes` are `string`'s UTF-8 (a name equal to the one expected is returned as that
    /// string itself: a read of the type it expects makes no new string).
    private static func bytes(_ bytes: UnsafeRawBufferPointer, equal string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            guard bytes.count == utf8.count else { return false }
            guard let left = bytes.baseAddress, let right = utf8.baseAddress else { return true }
            return memcmp(left, right, utf8.count) == 0
        }
    }

    /// The type name at the start of `bytes` (the payload's first bytes, possibly not all of it),
    /// or `nil` when they do not hold a whole one.
    static func typeName(prefixing bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.count >= 2 else { return nil }
        let start = bytes.startIndex
        let length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
        guard bytes.count >= 2 + length else { return nil }
        return String(validating: bytes[(start + 2)..<(start + 2 + length)], as: UTF8.self)
    }
}
