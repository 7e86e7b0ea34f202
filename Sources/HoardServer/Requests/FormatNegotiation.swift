import Foundation

/// Reads an `Accept` header for the formats `f:auto` may answer with: AVIF, else WebP, else PNG
/// or JPEG by transparency.
///
/// A format is chosen only when the client names it (`image/avif`, `image/webp`) with a non-zero
/// quality: `*/*` and `image/*` are sent by clients that cannot decode them too; browsers that
/// decode them name them.
///
/// ```swift
/// let chromium = FormatNegotiation(accept: "image/avif,image/webp,image/apng,*/*;q=0.8")
/// chromium.acceptsAVIF  // true
/// ```
public struct FormatNegotiation: Sendable, Hashable {
    /// Whether the client named WebP with a quality above zero.
    public let acceptsWebP: Bool
    /// Whether the client named AVIF with a quality above zero.
    public let acceptsAVIF: Bool

    /// The negotiation for an `Accept` header's value; `nil` (no header) accepts neither. Media
    /// types and parameter names compare without case; spaces and tabs around them are ignored;
    /// the last mention of a type counts.
    public init(accept: String?) {
        var webP = false
        var avif = false
        for range in (accept ?? "").utf8.split(separator: UInt8(ascii: ",")).prefix(64) {
            let parameters = range.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            guard let type = parameters.first.map(Self.trimmed) else { continue }
            let isWebP = Self.equalsIgnoringCase(type, "image/webp")
            guard isWebP || Self.equalsIgnoringCase(type, "image/avif") else { continue }
            let quality = parameters.dropFirst().lazy.map(Self.trimmed).first { Self.startsIgnoringCase($0, "q=") }
                .flatMap { Double(String(decoding: $0.dropFirst(2), as: UTF8.self)) } ?? 1
            if isWebP { webP = quality > 0 } else { avif = quality > 0 }
        }
        acceptsWebP = webP
        acceptsAVIF = avif
    }

    /// The format to encode in: `requested`, or for `auto` AVIF when accepted, else WebP when
    /// accepted, else PNG for an image with transparency and JPEG for an opaque one.
    public func format(for requested: ProcessingOptions.Format, isOpaque: Bool) -> ProcessingOptions.Format {
        guard requested == .auto else { return requested }
        if acceptsAVIF { return .avif }
        if acceptsWebP { return .webp }
        return isOpaque ? .jpeg : .png
    }

    private typealias Bytes = Substring.UTF8View.SubSequence

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Bytes) -> Bytes {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// Whether `bytes` spell `lowercase` (ASCII) in any case.
    private static func equalsIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        bytes.count == lowercase.utf8CodeUnitCount && startsIgnoringCase(bytes, lowercase)
    }

    /// Whether `bytes` start with `lowercase` (ASCII) in any case.
    private static func startsIgnoringCase(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        let prefix = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard bytes.count >= prefix.count else { return false }
        return zip(bytes, prefix).allSatisfy { byte, expected in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == expected : byte == expected
        }
    }
}
