import HoardCore
import HoardSystem

/// Why an image could not be decoded, encoded or built.
///
/// Every case names the format involved and, where the codec library (libpng, libjpeg, libwebp,
/// giflib, libavif) gave one, its own message, so a log line says what failed and where without a
/// debugger.
public enum ImageError: Error, Sendable, Hashable {
    /// The data is empty.
    case emptyData
    /// The leading bytes match none of the signatures ``ImageFormat/init(sniffing:)`` knows.
    case unrecognizedFormat(leadingBytes: [UInt8])
    /// The decoder rejected the data; `message` is the library's text.
    case malformed(ImageFormat, message: String)
    /// The data ends before the image does (for JPEG, libjpeg's "Premature end of JPEG file").
    case truncated(ImageFormat, message: String)
    /// Decoding would allocate more pixels than ``Image/DecodingOptions/maximumPixelCount``
    /// allows (for a JPEG, at the DCT scale the decode would use), or the header declares more
    /// than any scale could bring within it. `width` and `height` are the declared size. Nothing
    /// was allocated for the pixels.
    case tooLarge(ImageFormat, width: Int, height: Int, maximumPixelCount: Int)
    /// Valid data that this build cannot decode (12-bit or lossless JPEG, an AVIF feature newer
    /// than the system's libavif, or an AVIF grid of more tiles than the pixel limit allows, one
    /// per 65,536 pixels, as each costs an AV1 decoder of its own).
    case unsupported(ImageFormat, message: String)
    /// The codec ran out of memory, or reached the memory cap derived from the pixel limit.
    case outOfMemory(ImageFormat, message: String)
    /// Encoding failed; `message` is the library's text.
    case encodingFailed(ImageFormat, message: String)
    /// A width or height that is not positive, or whose product overflows.
    case invalidDimensions(width: Int, height: Int)
    /// A pixel buffer whose length does not match the size and format.
    case pixelCountMismatch(expected: Int, actual: Int)
    /// A JPEG or WebP quality outside 1...100.
    case invalidQuality(Int)
    /// An ICC profile that cannot be used: over the size limit, damaged, of a kind that does not
    /// convert to a display (a device link, say), or of another colour space than the pixels.
    case invalidColourProfile(message: String)
    /// Another argument Hoard cannot use (a box of 0 pixels, a compression level outside 0...9).
    case invalidValue(InvalidValueError)
}

extension ImageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .emptyData:
            "Image data is empty"
        case .unrecognizedFormat(let bytes):
            "Image data is not PNG, JPEG, WebP, GIF or AVIF (starts with \(Self.hex(bytes)))"
        case .malformed(let format, let message):
            "Malformed \(format.name) data: \(message)"
        case .truncated(let format, let message):
            "Truncated \(format.name) data: \(message)"
        case .tooLarge(let format, let width, let height, let limit):
            "\(format.name) declares \(width) x \(height) pixels (\(Self.product(width, height))), "
                + "more than the limit of \(limit)"
        case .unsupported(let format, let message):
            "Unsupported \(format.name) data: \(message)"
        case .outOfMemory(let format, let message):
            "Out of memory decoding \(format.name): \(message)"
        case .encodingFailed(let format, let message):
            "\(format.name) encoding failed: \(message)"
        case .invalidDimensions(let width, let height):
            "Invalid image size \(width) x \(height)"
        case .pixelCountMismatch(let expected, let actual):
            "Pixel buffer holds \(actual) bytes, expected \(expected)"
        case .invalidQuality(let quality):
            "JPEG or WebP quality \(quality) is outside 1...100"
        case .invalidColourProfile(let message):
            "Unusable ICC profile: \(message)"
        case .invalidValue(let error):
            "Invalid value: \(error)"
        }
    }

    /// `width * height` as text. A PNG header may declare two sides near 2^32, whose product does
    /// not fit in an `Int`: then the text says so instead of trapping.
    private static func product(_ width: Int, _ height: Int) -> String {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? "more than \(Int.max)" : "\(product)"
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty
            ? "nothing"
            : bytes.map { String($0, radix: 16, uppercase: true).zeroPadded(toLength: 2) }.joined(separator: " ")
    }
}

extension ImageFormat {
    /// The name used in messages: `PNG`, `JPEG`, `WebP`, `GIF` or `AVIF`.
    var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WebP"
        case .gif: "GIF"
        case .avif: "AVIF"
        }
    }
}
