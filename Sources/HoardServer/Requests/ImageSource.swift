import Foundation

/// Where a request's image comes from: an http(s) URL, or a file under the server's local root.
///
/// ```swift
/// try ImageSource(parsing: "https://images.example/a.jpg")  // .remote(…)
/// try ImageSource(parsing: "local:///photos/a.jpg")          // .local(["photos", "a.jpg"])
/// ```
public enum ImageSource: Sendable, Hashable, CustomStringConvertible {
    /// An http or https URL; no user information, no fragment.
    case remote(URL)
    /// A file below the local root, as path components (none empty, `.` or `..`).
    case local([String])

    /// The longest source a request may name, in bytes.
    public static let maximumLength = 4096

    /// Parses a source as a URL names it: `http://…`, `https://…`, or `local:///relative/path`.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for anything else: another scheme, no host, user
    ///   information, control characters or spaces, a path component that is empty, `.`, `..` or
    ///   holds a NUL, or more than ``maximumLength`` bytes.
    public init(parsing text: String) throws(ServeError) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw .badOptions("the source must be 1 to \(Self.maximumLength) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .badOptions("the source holds a space or a control character")
        }
        let lowered = text.lowercased()
        if lowered.hasPrefix("local:") {
            self = .local(try Self.localComponents(String(text.dropFirst("local:".count))))
            return
        }
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
            let url = components.url
        else {
            throw .badOptions("the source is not an http(s) URL or local:///path")
        }
        // Foundation rewrites a string that is not a valid URL (it percent-encodes it again); such
        // a source is refused rather than fetched as something else.
        guard text.utf8.allSatisfy({ $0 < 0x80 }), components.string == text else {
            throw .badOptions("the source is not a valid URL (percent-encode spaces and non-ASCII characters)")
        }
        guard components.user == nil, components.password == nil else {
            throw .badOptions("the source URL carries user information")
        }
        guard components.fragment == nil else { throw .badOptions("the source URL carries a fragment") }
        self = .remote(url)
    }

    /// The source as ``init(parsing:)`` reads it back.
    public var description: String {
        switch self {
        case .remote(let url): url.absoluteString
        case .local(let components): "local:///" + components.joined(separator: "/")
        }
    }

    private static func localComponents(_ path: String) throws(ServeError) -> [String] {
        // Split on the byte `/`, not on Characters: "/\u{301}" is one Character holding a slash.
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }
        guard !components.isEmpty else { throw .badOptions("local: names no file") }
        for component in components where !Self.isPlainName(component) {
            throw .badOptions("local: path component \"\(component)\" is not allowed")
        }
        return components
    }

    /// Whether `name` is one file name: not empty, `.` or `..`, no `/` or NUL, at most 255 bytes.
    package static func isPlainName(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && name != "." && name != ".." && bytes.count <= 255
            && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
    }
}
