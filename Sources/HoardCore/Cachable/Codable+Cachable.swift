// Codable values that ship conforming, through the JSON default of `Cachable where Self: Codable`.
// Their identifiers are spelled out so that entries stay readable whatever module a toolchain
// moves a type to.

extension Bool: Cachable {
    /// `"Swift.Bool"`.
    public static var cacheTypeIdentifier: String { "Swift.Bool" }
}

extension Int: Cachable {
    /// `"Swift.Int"`.
    public static var cacheTypeIdentifier: String { "Swift.Int" }
}

extension Double: Cachable {
    /// `"Swift.Double"`.
    public static var cacheTypeIdentifier: String { "Swift.Double" }
}

/// Arrays of cachable `Codable` values are cachable, as JSON.
extension Array: Cachable where Element: Cachable & Codable {
    /// `"Swift.Array<Element>"`, with the element's own identifier.
    public static var cacheTypeIdentifier: String { "Swift.Array<\(Element.cacheTypeIdentifier)>" }
}

/// Dictionaries of cachable `Codable` keys and values are cachable, as JSON.
extension Dictionary: Cachable where Key: Cachable & Codable, Value: Cachable & Codable {
    /// `"Swift.Dictionary<Key, Value>"`, with the key's and value's own identifiers.
    public static var cacheTypeIdentifier: String {
        "Swift.Dictionary<\(Key.cacheTypeIdentifier), \(Value.cacheTypeIdentifier)>"
    }
}
