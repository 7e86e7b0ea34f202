/// The `Cache-Control` directives of a response that a private cache of originals acts on
/// (RFC 9111 §5.2.2): `max-age`, `no-store`, `no-cache` and `must-revalidate`. Others (`public`,
/// `private`, `s-maxage`, extensions) are ignored.
///
/// Parsing is lenient where RFC 9111 allows it and strict where a mistake would keep a stale
/// original: directive names are case-insensitive, values may be tokens or quoted strings (with
/// `\` escapes), empty list members and spaces are skipped. A `max-age` that is not a
/// non-negative integer (`-1`, `1.5`, `abc`, none) is ``MaxAge/invalid``, and the response is
/// then stale (RFC 9111 §4.2.1); a huge one is clamped to 2^31 seconds (§1.2.2). When a directive
/// appears more than once, the most restrictive reading wins: the smallest `max-age`, any invalid
/// one making the whole invalid.
///
/// ```swift
/// let control = CacheControl(fieldLines: ["public, MAX-AGE=\"60\"", "max-age=30"])
/// control.maxAge  // .seconds(30)
/// ```
package struct CacheControl: Sendable, Equatable {
    /// A `max-age` directive's value.
    package enum MaxAge: Sendable, Equatable {
        /// The response is fresh for this many seconds, at most ``CacheControl/maximumDeltaSeconds``.
        case seconds(Int)
        /// The value was not a non-negative integer: the response is stale.
        case invalid
    }

    /// The largest delta-seconds value kept: 2^31, as RFC 9111 §1.2.2 asks of a value that
    /// overflows.
    package static let maximumDeltaSeconds = 2_147_483_648

    /// `max-age`, or `nil` without one.
    private(set) var maxAge: MaxAge?
    /// `no-store`: the original must not be kept.
    private(set) var noStore = false
    /// `no-cache` (with or without field names): the original may be kept but must be revalidated
    /// before each use.
    private(set) var noCache = false
    /// `must-revalidate`: once stale, the original must not be used without a successful
    /// revalidation, not even when the server cannot be reached.
    private(set) var mustRevalidate = false

    /// Parses every `Cache-Control` field line of a response.
    ///
    /// - Parameter fieldLines: The field values, in order; several lines read as one list.
    package init(fieldLines: [String]) {
        for line in fieldLines {
            for directive in Self.members(of: line) { apply(directive) }
        }
    }

    /// Parses a delta-seconds value (RFC 9111 §1.2.2): ASCII digits only, clamped to
    /// ``maximumDeltaSeconds``; `nil` for anything else.
    package static func deltaSeconds(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for digit in text.utf8 {
            value = value * 10 + Int(digit - 0x30)
            if value >= maximumDeltaSeconds { return maximumDeltaSeconds }
        }
        return value
    }

    // MARK: - Private

    private struct Directive {
        package var name: String
        /// The value, unquoted; `nil` without `=`, or for a quoted string that never ends.
        package var value: Substring?
    }

    private mutating func apply(_ directive: Directive) {
        switch directive.name {
        case "max-age":
            let parsed: MaxAge = directive.value.flatMap(Self.deltaSeconds).map(MaxAge.seconds) ?? .invalid
            switch (maxAge, parsed) {
            case (nil, _): maxAge = parsed
            case (.invalid, _), (_, .invalid): maxAge = .invalid
            case (.seconds(let old), .seconds(let new)): maxAge = .seconds(min(old, new))
            }
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        default: break
        }
    }

    /// The list members of one field line: split at commas outside quoted strings.
    private static func members(of line: String) -> [Directive] {
        var directives: [Directive] = []
        var inQuotes = false
        var escaped = false
        var start = line.startIndex
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == ",", !inQuotes {
                if let directive = directive(line[start..<index]) { directives.append(directive) }
                start = line.index(after: index)
            }
            index = line.index(after: index)
        }
        if let directive = directive(line[start...]) { directives.append(directive) }
        return directives
    }

    /// One `name[=value]` member, or `nil` when it is empty.
    private static func directive(_ member: Substring) -> Directive? {
        let trimmed = member.trimmingOptionalWhiteSpace()
        guard !trimmed.isEmpty else { return nil }
        guard let equals = trimmed.firstIndex(of: "=") else {
            return Directive(name: trimmed.lowercased(), value: nil)
        }
        let name = trimmed[..<equals].trimmingOptionalWhiteSpace().lowercased()
        let raw = trimmed[trimmed.index(after: equals)...].trimmingOptionalWhiteSpace()
        return Directive(name: name, value: unquoted(raw))
    }

    /// A token as it is, or a quoted string without its quotes and escapes; `nil` for a quoted
    /// string that does not end with its closing quote.
    private static func unquoted(_ value: Substring) -> Substring? {
        guard value.first == "\"" else { return value }
        var result = ""
        var escaped = false
        var index = value.index(after: value.startIndex)
        while index < value.endIndex {
            let character = value[index]
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return value.index(after: index) == value.endIndex ? Substring(result) : nil
            } else {
                result.append(character)
            }
            index = value.index(after: index)
        }
        return nil
    }
}
