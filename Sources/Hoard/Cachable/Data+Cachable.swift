import Foundation

extension Data: Cachable {
    /// The bytes themselves.
    public func encode() throws -> Data { self }

    /// The bytes themselves.
    public static func decode(_ data: Data) throws -> Data { data }
}
