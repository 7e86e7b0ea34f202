import Foundation

extension String: Cachable {
    /// `"Swift.String"`.
    public static var cacheTypeIdentifier: String { "Swift.String" }

    /// The string's UTF-8 bytes.
    public func encode() throws -> Data { Data(utf8) }

    /// Decodes UTF-8 bytes, refusing invalid sequences instead of repairing them.
    ///
    /// - Throws: ``CachableError/invalidUTF8(offset:byteCount:)`` with the first invalid offset.
    public static func decode(_ data: Data) throws -> String {
        if let string = String(validating: data, as: UTF8.self) { return string }
        throw CachableError.invalidUTF8(offset: firstInvalidUTF8Offset(in: data), byteCount: data.count)
    }

    /// Where the first invalid UTF-8 sequence starts.
    private static func firstInvalidUTF8Offset(in data: Data) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }
}
