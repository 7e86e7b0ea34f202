// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// A parser limit that cannot be used: names the limit, the value given and what is allowed.
///
/// Limits usually come from configuration (a client's maximum reply size), so a bad one is
/// input to refuse, not a programming error.
///
/// ```swift
/// do {
///     _ = try RESPParser.Limits(maximumDepth: 0)
/// } catch {
///     print(error)  // "RESPParser.Limits.maximumDepth must be at least 1, got 0"
/// }
/// ```
public struct RESPLimitError: Error, Sendable, Hashable {
    /// The limit, e.g. `"RESPParser.Limits.maximumDepth"`.
    public var field: String
    /// The value given.
    public var value: Int
    /// The smallest value allowed.
    public var minimum: Int

    /// An error saying that `field` was given `value`, below `minimum`.
    ///
    /// ```swift
    /// let error = RESPLimitError(field: "RESPParser.Limits.maximumDepth", value: 0, minimum: 1)
    /// ```
    ///
    /// - Parameters:
    ///   - field: The limit's name.
    ///   - value: The value given.
    ///   - minimum: The smallest value allowed.
    /// - Complexity: O(1).
    public init(field: String, value: Int, minimum: Int) {
        self.field = field
        self.value = value
        self.minimum = minimum
    }
}

extension RESPLimitError: CustomStringConvertible {
    /// `"<field> must be at least <minimum>, got <value>"`.
    public var description: String {
        "\(field) must be at least \(minimum), got \(value)"
    }
}
