import Foundation

/// A memoized result that may be `nil`, so that a `nil` is cached (a hit) rather than a miss.
///
/// Bytes: `0` for `nil`; `1` followed by the wrapped value's own encoding otherwise.
struct OptionalValue<Wrapped: Cachable>: Cachable {
    let wrapped: Wrapped?

    init(_ wrapped: Wrapped?) {
        self.wrapped = wrapped
    }

    static var cacheTypeIdentifier: String { "Swift.Optional<\(Wrapped.cacheTypeIdentifier)>" }

    func encode() throws -> Data {
        guard let wrapped else { return Data([0]) }
        var data = Data([1])
        data.append(try wrapped.encode())
        return data
    }

    static func decode(_ data: Data) throws -> OptionalValue {
        switch data.first {
        case 0 where data.count == 1:
            return OptionalValue(nil)
        case 1:
            return OptionalValue(try Wrapped.decode(Data(data.dropFirst())))
        default:
            throw CachableError.decodingFailed(
                type: cacheTypeIdentifier, reason: "expected a 0 (nil) or 1 (a value) tag byte")
        }
    }
}
