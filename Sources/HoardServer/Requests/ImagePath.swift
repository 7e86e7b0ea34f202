import Foundation
import HoardSystem

/// A request's path, parsed: `/<signature>/<option>/…/<source>`.
///
/// - The signature is the URL-safe Base64 (no padding) of an HMAC-SHA256 over the rest of the
///   path as received, from its `/` on (see ``URLSigner``); `unsafe` when unsigned URLs are enabled.
/// - Each option is `name:value`: `w:256`, `h:192`, `fit:fit|fill`, `g:center|north|south|east|west|ne|nw|se|sw`,
///   `dpr:2`, `q:80`, `f:auto|jpeg|png|webp`, or `p:NAME` for a preset (its options apply at its place;
///   later options override earlier ones).
/// - The source is one segment, the URL-safe Base64 of `https://…` or `local:///…`; or `plain/`
///   followed by the source percent-encoded.
///
/// ```swift
/// let path = try ImagePath(parsing: "/unsafe/w:256/f:webp/plain/https%3A%2F%2Fimages.example%2Fa.jpg")
/// path.options.width  // 256
/// ```
public struct ImagePath: Sendable, Hashable {
    /// The signature segment as received; `nil` for `unsafe`.
    public let signature: String?
    /// The part of the path the signature covers: everything after the signature segment, from its `/`.
    public let signedPart: String
    /// The options, presets expanded.
    public let options: ProcessingOptions
    /// Where the image comes from.
    public let source: ImageSource

    /// The longest path accepted, in bytes.
    public static let maximumLength = 8192
    /// The signature segment of an unsigned URL.
    public static let unsignedMarker = "unsafe"

    /// A path's signature segment (`nil` for `unsafe`) and the part it signs, before anything
    /// else is parsed: so that an unauthenticated client learns nothing from the options' errors.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for a path without a first segment.
    public static func signature(of path: String) throws(ServeError) -> (signature: String?, signedPart: String) {
        guard path.hasPrefix("/"), path.utf8.count <= maximumLength else {
            throw .badOptions("the path does not start with /<signature>/")
        }
        let rest = path.dropFirst()
        guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
            throw .badOptions("the path does not start with /<signature>/")
        }
        let first = String(rest[..<slash])
        return (first == unsignedMarker ? nil : first, String(rest[slash...]))
    }

    /// Parses a request's path (percent-encoded, as received, without the query).
    ///
    /// - Parameters:
    ///   - path: The path, starting with `/`.
    ///   - presets: Named option lists `p:NAME` expands to (each `name:value`).
    ///   - presetsOnly: Whether options other than `p:` are refused.
    /// - Throws: ``ServeError/badOptions(_:)``.
    public init(parsing path: String, presets: [String: [String]] = [:], presetsOnly: Bool = false) throws(ServeError) {
        guard path.utf8.count <= Self.maximumLength else {
            throw .badOptions("the path is longer than \(Self.maximumLength) bytes")
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), let first = segments.popFirst(), !first.isEmpty else {
            throw .badOptions("the path does not start with /<signature>/")
        }
        signature = first == Self.unsignedMarker ? nil : String(first)
        signedPart = String(path.dropFirst(1 + first.utf8.count))
        var builder = OptionsBuilder()
        while let segment = segments.first, segment.contains(":"), segment != "plain" {
            segments.removeFirst()
            let (name, value) = Self.split(segment)
            if name == "p" {
                guard let preset = presets[value] else { throw .badOptions("p: no preset named \"\(value)\"") }
                for option in preset {
                    let (presetName, presetValue) = Self.split(Substring(option))
                    try builder.apply(presetName, presetValue)
                }
            } else {
                guard !presetsOnly else { throw .badOptions("only presets (p:NAME) are allowed") }
                try builder.apply(name, value)
            }
        }
        options = try builder.options()
        source = try ImageSource(parsing: try Self.sourceText(Array(segments)))
    }

    /// The source's text from the segments after the options.
    private static func sourceText(_ segments: [Substring]) throws(ServeError) -> String {
        guard let first = segments.first else { throw .badOptions("the path names no source") }
        if first == "plain" {
            let encoded = segments.dropFirst().joined(separator: "/")
            guard let decoded = encoded.removingPercentEncoding, !decoded.isEmpty else {
                throw .badOptions("plain/: the source is not valid percent-encoding")
            }
            return decoded
        }
        guard segments.count == 1 else {
            throw .badOptions("the source must be one Base64 segment, or follow plain/")
        }
        guard let bytes = Base64URL.decode(String(first)), let text = String(validating: bytes, as: UTF8.self) else {
            throw .badOptions("the source segment is not URL-safe Base64 of UTF-8 text")
        }
        return text
    }

    private static func split(_ segment: Substring) -> (name: String, value: String) {
        guard let colon = segment.firstIndex(of: ":") else { return (String(segment), "") }
        return (String(segment[..<colon]), String(segment[segment.index(after: colon)...]))
    }
}

extension ImagePath {
    /// The part of a path a signature covers for `options` and `source`: the options that differ
    /// from their defaults, then the source as URL-safe Base64. ``URLSigner/signedPath(_:)`` puts
    /// the signature in front; `"/unsafe" + part` is the unsigned path.
    ///
    /// ```swift
    /// ImagePath.signedPart(options: ProcessingOptions(width: 256), source: source)  // "/w:256/aHR0…"
    /// ```
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` when the options are out of range.
    public static func signedPart(options: ProcessingOptions, source: ImageSource) throws(ServeError) -> String {
        try options.validate()
        var segments = ["w:\(options.width)"]
        if let height = options.height { segments.append("h:\(height)") }
        if options.fit != .fit { segments.append("fit:\(options.fit.rawValue)") }
        if options.gravity != .center { segments.append("g:\(options.gravity.rawValue)") }
        if options.pixelRatio != 1 { segments.append("dpr:\(Self.ratioText(options.pixelRatio))") }
        if let quality = options.quality { segments.append("q:\(quality)") }
        if options.format != .auto { segments.append("f:\(options.format.rawValue)") }
        segments.append(Base64URL.encode(Array(source.description.utf8)))
        return "/" + segments.joined(separator: "/")
    }

    /// The ratio as the path writes it: `2`, `1.5`, `1.25` (validated to two decimals at most).
    private static func ratioText(_ ratio: Double) -> String {
        var text = ratio.fixed(decimals: 2)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
