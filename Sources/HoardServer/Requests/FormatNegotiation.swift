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

    /// The negotiation for an `Accept` header's value; `nil` (no header) accepts no WebP.
    public init(accept: String?) {
        var webP = false
        for range in (accept ?? "").split(separator: ",").prefix(64) {
            let parameters = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parameters.first == "image/webp" else { continue }
            let quality = parameters.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
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
}
