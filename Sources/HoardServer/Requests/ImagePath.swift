import Foundation
import HoardSystem

/// A request's path, parsed: `/<signature>/<option>/…/<source>`, in Hoard's spelling or imgproxy's.
///
/// - The signature is the URL-safe Base64 (no padding) of an HMAC-SHA256 over the rest of the
///   path as received, from its `/` on (see ``URLSigner``); `unsafe` or imgproxy's `insecure`
///   when unsigned URLs are enabled.
/// - Each option is `name:argument:…`. Hoard's: `w:256`, `h:192`, `fit:fit|fill`,
///   `g:center|north|south|east|west|ne|nw|se|sw`, `dpr:2`, `q:80`, `f:auto|jpeg|png|webp`, `p:NAME`
///   for a preset. imgproxy's, by full or short name: `resize`/`rs`, `size`/`s`, `resizing_type`/`rt`,
///   `width`/`w`, `height`/`h`, `min-width`/`mw`, `min-height`/`mh`, `dpr`, `enlarge`/`el`,
///   `extend`/`ex`, `gravity`/`g`, `crop`/`c`, `quality`/`q`, `format`/`f`/`ext`,
///   `background`/`bg`, `blur`/`bl`, `sharpen`/`sh`, `auto_rotate`/`ar`, `strip_metadata`/`sm`, `preset`/`pr`,
///   `cachebuster`/`cb`, `expires`/`exp`. A preset's options apply at its place (a preset named
///   `default` first of all); later options override earlier ones.
/// - The source is the URL-safe Base64 of `https://…` or `local:///…`, in one segment or split by
///   `/`, optionally followed by `.EXT`; or `plain/` followed by the source percent-encoded,
///   optionally followed by `@EXT`. The extension is the output format.
///
/// ```swift
/// let path = try ImagePath(parsing: "/unsafe/w:256/f:webp/plain/https%3A%2F%2Fimages.example%2Fa.jpg")
/// path.options.width  // 256
/// let imgproxy = try ImagePath(parsing: "/insecure/rs:fill:300:400/plain/https://images.example/a.jpg@png")
/// imgproxy.options.fit  // .fill
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
    /// imgproxy's signature segment of an unsigned URL, read as ``unsignedMarker``.
    public static let imgproxyUnsignedMarker = "insecure"

    /// How a width given with no height reads.
    public enum Style: String, Sendable, CaseIterable {
        /// As Hoard always has: a square box (`w:256` is 256 × 256).
        case hoard
        /// As imgproxy does: that width, the height from the source's proportions.
        case imgproxy
    }

    /// Whether `segment` is a signature segment that means "unsigned".
    static func isUnsignedMarker(_ segment: some StringProtocol) -> Bool {
        segment == unsignedMarker || segment == imgproxyUnsignedMarker
    }

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
        return (isUnsignedMarker(first) ? nil : first, String(rest[slash...]))
    }

    /// Parses a request's path (percent-encoded, as received, without the query).
    ///
    /// - Parameters:
    ///   - path: The path, starting with `/`.
    ///   - presets: Named option lists `p:NAME` and `pr:NAME:…` expand to (each `name:arguments`);
    ///     one named `default` applies to every path, first.
    ///   - presetsOnly: Whether options other than presets are refused.
    ///   - style: How a width given with no height reads.
    /// - Throws: ``ServeError/badOptions(_:)``.
    public init(
        parsing path: String, presets: [String: [String]] = [:], presetsOnly: Bool = false, style: Style = .hoard
    ) throws(ServeError) {
        guard path.utf8.count <= Self.maximumLength else {
            throw .badOptions("the path is longer than \(Self.maximumLength) bytes")
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), let first = segments.popFirst(), !first.isEmpty else {
            throw .badOptions("the path does not start with /<signature>/")
        }
        signature = Self.isUnsignedMarker(first) ? nil : String(first)
        signedPart = String(path.dropFirst(1 + first.utf8.count))
        var builder = OptionsBuilder(style: style)
        if let preset = presets["default"] { try Self.apply(preset, named: "default", to: &builder) }
        while let segment = segments.first, segment.contains(":"), segment != "plain" {
            segments.removeFirst()
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
            let name = String(parts[0])
            if name == "p" || name == "pr" || name == "preset" {
                for presetName in parts.dropFirst() {
                    guard let preset = presets[String(presetName)] else {
                        throw .badOptions("\(name): no preset named \"\(presetName)\"")
                    }
                    try Self.apply(preset, named: String(presetName), to: &builder)
                }
            } else {
                guard !presetsOnly else { throw .badOptions("only presets (p:NAME) are allowed") }
                try builder.apply(name, Array(parts.dropFirst()))
            }
        }
        let (text, fileExtension) = try Self.sourceText(Array(segments))
        var options = try builder.built()
        if let fileExtension { options.format = try OptionsBuilder.format(fileExtension, "the extension") }
        self.options = options
        source = try ImageSource(parsing: text)
    }

    /// Checks a preset's options as a path would apply them.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for an option that does not parse or names a preset.
    static func checkPreset(_ preset: [String], named name: String) throws(ServeError) {
        var builder = OptionsBuilder(style: .imgproxy)
        try apply(preset, named: name, to: &builder)
    }

    /// Applies a preset's options (each `name:arguments`).
    private static func apply(_ preset: [String], named name: String, to builder: inout OptionsBuilder) throws(ServeError) {
        for option in preset {
            let parts = option.split(separator: ":", omittingEmptySubsequences: false)
            guard parts[0] != "p", parts[0] != "pr", parts[0] != "preset" else {
                throw .badOptions("preset \"\(name)\" names another preset")
            }
            try builder.apply(String(parts[0]), Array(parts.dropFirst()))
        }
    }

    /// The source's text from the segments after the options, and its extension (`@EXT` after a
    /// plain source, `.EXT` after a Base64 one).
    private static func sourceText(_ segments: [Substring]) throws(ServeError) -> (String, String?) {
        guard let first = segments.first else { throw .badOptions("the path names no source") }
        if first == "plain" {
            var encoded = segments.dropFirst().joined(separator: "/")
            var fileExtension: String?
            // imgproxy's rule: an `@` of the source itself is percent-encoded, so the last one starts the extension.
            if let at = encoded.lastIndex(of: "@") {
                fileExtension = String(encoded[encoded.index(after: at)...])
                encoded = String(encoded[..<at])
            }
            guard let decoded = encoded.removingPercentEncoding, !decoded.isEmpty else {
                throw .badOptions("plain/: the source is not valid percent-encoding")
            }
            return (decoded, fileExtension)
        }
        var encoded = segments.joined()
        var fileExtension: String?
        if let dot = encoded.lastIndex(of: ".") {
            fileExtension = String(encoded[encoded.index(after: dot)...])
            encoded = String(encoded[..<dot])
        }
        guard let bytes = Base64URL.decode(encoded), let text = String(validating: bytes, as: UTF8.self) else {
            throw .badOptions("the source is not URL-safe Base64 of UTF-8 text")
        }
        return (text, fileExtension)
    }
}

extension ImagePath {
    /// The part of a path a signature covers for `options` and `source`: the box (always with
    /// its height, so that both ``Style``s read it alike), the options that differ from their
    /// defaults, then the source as URL-safe Base64. ``URLSigner/signedPath(_:)`` puts the
    /// signature in front; `"/unsafe" + part` is the unsigned path.
    ///
    /// ```swift
    /// ImagePath.signedPart(options: ProcessingOptions(width: 256), source: source)  // "/w:256/h:256/aHR0…"
    /// ```
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` when the options are out of range.
    public static func signedPart(options: ProcessingOptions, source: ImageSource) throws(ServeError) -> String {
        try options.validate()
        var segments = ["w:\(options.width)", "h:\(options.height ?? options.width)"]
        switch options.fit {
        case .fit: break
        case .fillDown: segments.append("fit:fill")
        case .fill, .force, .auto: segments.append("rt:\(options.fit.rawValue)")
        }
        if options.placement != .init() { segments.append("g:" + Self.spelled(options.placement)) }
        if options.pixelRatio != 1 { segments.append("dpr:\(Self.numberText(options.pixelRatio))") }
        if options.enlarges { segments.append("el:1") }
        if let extend = options.extend { segments.append("ex:1:" + Self.spelled(extend)) }
        if options.minimumWidth > 0 { segments.append("mw:\(options.minimumWidth)") }
        if options.minimumHeight > 0 { segments.append("mh:\(options.minimumHeight)") }
        if let crop = options.crop {
            segments.append(
                "c:\(Self.numberText(crop.width)):\(Self.numberText(crop.height))"
                    + (crop.placement.map { ":" + Self.spelled($0) } ?? ""))
        }
        if let background = options.background { segments.append("bg:\(background.hex)") }
        if let blur = options.blur { segments.append("bl:\(Self.numberText(blur))") }
        if let sharpen = options.sharpen { segments.append("sh:\(Self.numberText(sharpen))") }
        if let quality = options.quality { segments.append("q:\(quality)") }
        if options.format != .auto { segments.append("f:\(options.format.rawValue)") }
        if let cacheBuster = options.cacheBuster { segments.append("cb:\(cacheBuster)") }
        if let expires = options.expires { segments.append("exp:\(expires)") }
        segments.append(Base64URL.encode(Array(source.description.utf8)))
        return "/" + segments.joined(separator: "/")
    }

    /// A placement as `g:` spells it: `ne`, `ce:10:0.25`, `sm`, `fp:0.3:0.7`.
    static func spelled(_ placement: ProcessingOptions.Placement) -> String {
        switch placement.gravity {
        case .smart: return "sm"
        case .focusPoint: return "fp:\(numberText(placement.x)):\(numberText(placement.y))"
        default:
            let name = placement.gravity.rawValue
            guard placement.x != 0 || placement.y != 0 else { return name }
            return "\(name):\(numberText(placement.x)):\(numberText(placement.y))"
        }
    }

    /// A number as the path writes it: `2`, `1.5`, `0.125`, `-3`.
    static func numberText(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }
}
