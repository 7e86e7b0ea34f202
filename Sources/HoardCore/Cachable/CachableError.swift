/// Why a value could not be turned into bytes or rebuilt from them.
public enum CachableError: Error, Sendable, Hashable {
    /// The bytes are not valid UTF-8; `offset` is the first byte that is not.
    case invalidUTF8(offset: Int, byteCount: Int)
    /// The bytes do not decode as `type`; `reason` is the decoder's explanation.
    case decodingFailed(type: String, reason: String)
    /// The value of `type` could not be encoded; `reason` is the encoder's explanation.
    case encodingFailed(type: String, reason: String)
}

extension CachableError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidUTF8(let offset, let count):
            "Cached bytes are not valid UTF-8: invalid byte at offset \(offset) of \(count)"
        case .decodingFailed(let type, let reason):
            "Cached bytes do not decode as \(type): \(reason)"
        case .encodingFailed(let type, let reason):
            "Cannot encode \(type) for the cache: \(reason)"
        }
    }
}
