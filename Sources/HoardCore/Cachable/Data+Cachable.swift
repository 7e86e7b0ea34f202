import Foundation

extension Data: Cachable {
    /// `"Foundation.Data"`, whichever Foundation module defines `Data` on this platform.
    public static var cacheTypeIdentifier: String { "Foundation.Data" }

    /// The bytes themselves.
    public func encode() throws -> Data { self }

    /// The bytes themselves.
    public static func decode(_ data: Data) throws -> Data { data }
}
