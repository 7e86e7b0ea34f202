import Foundation

/// Where a request's image comes from: an http(s) URL, or a file under the server's local root.
///
/// A `local:` source is a URL too: its path components are percent-decoded once, so
/// `local:///caf%C3%A9%201.jpg` names `café 1.jpg`; an encoded `/`, `.`/`..` or NUL stays refused.
///
/// ```swift
/// try ImageSource(parsing: "https://images.example/a.jpg")  // .remote(…)
/// try ImageSource(parsing: "local:///photos/a.jpg")          // .local(["photos", "a.jpg"])
/// ```
public enum ImageSource: Sendable, Hashable, CustomStringConvertible {
    /// An http or https URL; no user information, no fragment.
    case remote(URL)
    /// A file below the local root, as decoded path components (none empty, `.` or `..`).
    case local([String])

    /// The longest source a request may name, in bytes.
    public static let maximumLength = 4096

    /// Parses a source as a URL names it: `http://…`, `https://…`, or `local:///relative/path`.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for anything else: another scheme, no host, user
    ///   information, control characters or spaces (percent-encode them), a `local:` path that
    ///   does not start with `///`, a path component that is empty (`local:////a.jpg`, a
    ///   trailing `/`), `.` or `..`, or that decodes to one holding `/`, NUL or a control
    ///   character, or more than ``maximumLength`` bytes (for a local source, also once its
    ///   components are percent-encoded as ``description`` writes them).
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
            // Its written form (``description``) encodes what the text may have left plain: it
            // must fit the limit too, so that every accepted source reads back.
            guard description.utf8.count <= Self.maximumLength else {
                throw .badOptions("the source must be 1 to \(Self.maximumLength) bytes, percent-encoded")
            }
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
        case .local(let components):
            "local:///" + components.map { $0.addingPercentEncoding(withAllowedCharacters: Self.plainNameCharacters) ?? $0 }
                .joined(separator: "/")
        }
    }

    /// What a path component keeps unencoded in ``description``: RFC 3986's unreserved characters.
    private static let plainNameCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func localComponents(_ path: String) throws(ServeError) -> [String] {
        guard path.hasPrefix("///") else { throw .badOptions("a local source is local:///path") }
        // Split on the byte `/`, not on Characters: "/\u{301}" is one Character holding a slash.
        let encoded = path.utf8.dropFirst(3).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard encoded != [""] else { throw .badOptions("local: names no file") }
        return try encoded.map { component throws(ServeError) in
            guard !component.isEmpty else { throw .badOptions("local: path has an empty component") }
            guard let name = component.removingPercentEncoding, Self.isPlainName(name),
                !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw .badOptions("local: path component \"\(component)\" is not allowed") }
            return name
        }
    }

    /// Whether `name` is one file name: not empty, `.` or `..`, no `/` or NUL, at most 255 bytes.
    package static func isPlainName(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && name != "." && name != ".." && bytes.count <= 255
            && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
    }
}
