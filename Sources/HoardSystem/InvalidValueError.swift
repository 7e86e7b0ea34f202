/// A value passed to Hoard that it cannot use: a size of 0, a negative limit, a ratio outside its
/// range, an interval that is not finite. Names the field, the value and what is allowed.
///
/// Caches are configured from settings files and command lines, so a bad value is input, not a
/// programming error: every public initializer and function that takes such a value checks it
/// and throws this (wrapped in the caller's error type: `HoardError.invalidValue`,
/// `DiskCacheError.invalidValue`, `ImageError.invalidValue`, `RedisClientError.invalidValue`,
/// `RedisTierError.invalidValue`) instead of trapping. It is the one spelling of the error in every
/// module, from the Redis protocol's parser limits up; `import Hoard` and `import HoardRESP` bring it.
///
/// This file imports nothing but the standard library: the Redis protocol's fuzz harness compiles it
/// with `HoardRESP/Protocol` alone.
///
/// ```swift
/// var configuration = Hoard.Configuration(name: "thumbnails")
/// configuration.diskSizeLimit = 0
/// do {
///     _ = try Hoard(configuration: configuration)
/// } catch HoardError.invalidValue(let error) {
///     print(error)  // "Hoard.Configuration.diskSizeLimit must be at least 1, got 0"
/// }
/// ```
public struct InvalidValueError: Error, Sendable, Hashable {
    /// The parameter or property, e.g. `"Hoard.Configuration.diskSizeLimit"`.
    public var field: String
    /// The value given, as text.
    public var value: String
    /// What is allowed, e.g. `"at least 1"` or `"finite and at least 0"`.
    public var requirement: String

    /// Creates an error naming `field`, the `value` given and the `requirement` it breaks.
    public init(field: String, value: String, requirement: String) {
        self.field = field
        self.value = value
        self.requirement = requirement
    }
}

extension InvalidValueError: CustomStringConvertible {
    /// `"<field> must be <requirement>, got <value>"`.
    public var description: String {
        "\(field) must be \(requirement), got \(value)"
    }
}

extension InvalidValueError {
    /// Checks that `value` is at least `minimum`.
    @usableFromInline
    package static func check(_ value: Int, atLeast minimum: Int, _ field: String) throws(InvalidValueError) {
        guard value >= minimum else { throw InvalidValueError(field: field, value: "\(value)", requirement: "at least \(minimum)") }
    }

    /// Checks that `value` lies in `range`.
    package static func check(_ value: Int, in range: ClosedRange<Int>, _ field: String) throws(InvalidValueError) {
        guard range.contains(value) else {
            throw InvalidValueError(
                field: field, value: "\(value)", requirement: "between \(range.lowerBound) and \(range.upperBound)")
        }
    }

    /// Checks that `value` is finite and at least `minimum`.
    package static func check(_ value: Double, atLeast minimum: Double, _ field: String) throws(InvalidValueError) {
        guard value.isFinite, value >= minimum else {
            throw InvalidValueError(field: field, value: "\(value)", requirement: "finite and at least \(minimum)")
        }
    }
}
