import Foundation

/// Reads an `Accept` header for the formats `f:auto` may answer with.
///
/// WebP is chosen only when the client names `image/webp` with a non-zero quality: `*/*` and
/// `image/*` are sent by clients that cannot decode it too; browsers that decode it name it.
///
/// ```swift
/// FormatNegotiation(accept: "image/avif,image/webp,image/apng,*/*;q=0.8").acceptsWebP  // true
/// ```
public struct FormatNegotiation: Sendable, Hashable {
    /// Whether the client named WebP with a quality above zero.
    public let acceptsWebP: Bool

    /// The negotiation for an `Accept` header's value; `nil` (no header) accepts no WebP. Media
    /// types and parameter names compare without case; spaces and tabs around them are ignored.
    public init(accept: String?) {
        var webP = false
        for range in (accept ?? "").utf8.split(separator: UInt8(ascii: ",")).prefix(64) {
            let parameters = range.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            guard let type = parameters.first, Self.equalsIgnoringCase(Self.trimmed(type), "image/webp") else { continue }
            let quality = parameters.dropFirst().lazy.map(Self.trimmed).first { Self.startsIgnoringCase($0, "q=") }
                .flatMap { Double(String(decoding: $0.dropFirst(2), as: UTF8.self)) } ?? 1
            webP = quality > 0
        }
        acceptsWebP = webP
    }

    /// The format to encode in: `requested`, or for `auto` WebP when accepted, else PNG for an
    /// image with transparency and JPEG for an opaque one.
    public func format(for requested: ProcessingOptions.Format, isOpaque: Bool) -> ProcessingOptions.Format {
        guard requested == .auto else { return requested }
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
