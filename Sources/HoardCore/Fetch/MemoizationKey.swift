import Foundation

/// How ``Hoard/memoize(_:namespace:policy:expiry:file:function:line:)`` names a call's result.
///
/// A key is `memoize:<namespace>:<arguments>`. The namespace is the one given, else the place
/// `memoize` was called from: `<file ID>:<line> <function>`. The arguments part is the caller's
/// `key` closure's string, else a JSON array with one element per argument: the argument's JSON
/// encoding when it is `Encodable` (keys sorted, so equal values give equal keys), else its
/// `description` as a JSON string. A `Hashable` argument's hash is never used: Swift seeds hashes
/// per process, and keys must mean the same thing in every process that shares the cache.
///
/// ```swift
/// // thumbnail(URL(string: "https://example.com/a.png")!, 256) memoized with namespace "thumbnail":
/// // memoize:thumbnail:["https://example.com/a.png",256]
/// ```
enum MemoizationKey {
    /// The cache key of one call.
    static func key(namespace: String, arguments: String) -> String {
        "memoize:\(namespace):\(arguments)"
    }

    /// The default namespace: where `memoize` was called.
    static func namespace(file: String, function: String, line: UInt) -> String {
        "\(file):\(line) \(function)"
    }

    /// Every argument, as a JSON array.
    static func arguments<each Argument>(_ arguments: repeat each Argument) -> String {
        var parts: [String] = []
        for argument in repeat each arguments {
            parts.append(json(argument))
        }
        return "[" + parts.joined(separator: ",") + "]"
    }

    /// The JSON of an `Encodable` value, else its description as a JSON string.
    static func json(_ value: Any) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let encodable = value as? any Encodable, let data = try? encoder.encode(encodable) {
            return String(decoding: data, as: UTF8.self)
        }
        let text = String(describing: value)
        guard let data = try? encoder.encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}
