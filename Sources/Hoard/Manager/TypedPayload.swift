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

    /// The type name and the value's bytes, or `nil` when `data` is not laid out as above.
    static func unwrap(_ data: Data) -> (typeName: String, payload: Data)? {
        guard data.count >= 2 else { return nil }
        let start = data.startIndex
        let length = Int(data[start]) << 8 | Int(data[start + 1])
        guard data.count >= 2 + length else { return nil }
        let nameBytes = data[(start + 2)..<(start + 2 + length)]
        guard let name = String(validating: nameBytes, as: UTF8.self) else { return nil }
        return (name, Data(data[(start + 2 + length)...]))
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
