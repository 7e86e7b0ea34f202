// Codable values that ship conforming, through the JSON default of `Cachable where Self: Codable`.

extension Bool: Cachable {}
extension Int: Cachable {}
extension Double: Cachable {}

/// Arrays of cachable `Codable` values are cachable, as JSON.
extension Array: Cachable where Element: Cachable & Codable {}

/// Dictionaries of cachable `Codable` keys and values are cachable, as JSON.
extension Dictionary: Cachable where Key: Cachable & Codable, Value: Cachable & Codable {}
