import CHoardCodecs
import Foundation
import HoardSystem

/// An ICC colour profile: the colour space an image's pixels are in.
///
/// Made by decoding with ``Image/ColourHandling/keep`` (from the file's embedded profile, or from
/// its PNG `gAMA`/`cHRM` chunks or AVIF `nclx` code points), or from profile bytes. Checked by
/// Little CMS when made: at most 4 MiB, a valid header, and a profile that opens.
///
/// ```swift
/// var options = Image.DecodingOptions()
/// options.colour = .keep
/// let photo = try Image(data: bytes, options: options)
/// print(photo.colourProfile?.colourSpace)   // .rgb for Display P3
/// ```
public struct ColourProfile: Sendable, Hashable {
    /// What a profile's values mean.
    public enum ColourSpace: String, Sendable, Hashable {
        case gray
        case rgb
        case cmyk
    }

    /// The largest profile accepted, checked before parsing: 4 MiB.
    public static let maximumByteCount = Int(HOARD_ICC_MAX_BYTES)

    /// The profile's bytes, as they will be embedded.
    public var iccData: Data { Data(bytes) }
    /// The same bytes as an array: what the caches of inspections and transforms are keyed by.
    let bytes: [UInt8]
    /// The colour space, from the profile's header.
    public let colourSpace: ColourSpace
    /// Whether the profile describes sRGB itself (colorants and curves within rounding), so that
    /// converting to sRGB would change nothing.
    let isSRGB: Bool

    /// Checks `iccData` and reads its colour space.
    ///
    /// - Throws: ``ImageError/invalidColourProfile(message:)`` saying what is wrong.
    /// The profile's description (its `desc` tag: "Display P3", "sRGB IEC61966-2.1"), or `nil`
    /// when it has none; printable ASCII only.
    public var description: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let found = bytes.withUnsafeBufferPointer { icc in
            hoard_icc_description(icc.baseAddress, icc.count, &buffer, buffer.count)
        }
        guard found == 1 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let printable = String(text.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) })
        return printable.isEmpty ? nil : printable
    }

    public init(iccData: Data) throws(ImageError) {
        let bytes = [UInt8](iccData)
        let (space, isSRGB, message) = Self.inspected(bytes)
        switch space {
        case HOARD_ICC_GRAY: colourSpace = .gray
        case HOARD_ICC_RGB: colourSpace = .rgb
        case HOARD_ICC_CMYK: colourSpace = .cmyk
        default: throw .invalidColourProfile(message: message)
        }
        self.bytes = bytes
        self.isSRGB = isSRGB
    }

    /// What Little CMS said of profiles already checked (a batch from one camera repeats one):
    /// keyed by their bytes as an array (as ``ColourTransform``'s cache), at most ``inspectedLimit``.
    private static let inspections = Lock<[[UInt8]: (space: Int32, isSRGB: Bool, message: String)]>([:])
    private static let inspectedLimit = 32

    /// `hoard_icc_inspect` of `key`, once per distinct profile.
    private static func inspected(_ key: [UInt8]) -> (space: Int32, isSRGB: Bool, message: String) {
        if let found = inspections.withLock({ $0[key] }) { return found }
        var isSRGB: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let space = key.withUnsafeBufferPointer {
            hoard_icc_inspect($0.baseAddress, $0.count, &isSRGB, &message, message.count)
        }
        let inspection = (space: space, isSRGB: isSRGB != 0, message: String(cString: message))
        inspections.withLock { entries in
            if entries.count >= inspectedLimit { entries.removeAll() }
            entries[key] = inspection
        }
        return inspection
    }

    /// Whether pixels in `format` can be in this colour space: gray profiles for gray formats, RGB
    /// ones for colour formats.
    func describes(_ format: Image.PixelFormat) -> Bool {
        colourSpace == (format.isColor ? .rgb : .gray)
    }

    /// An RGB profile made from white point and primaries (x, y pairs: white, red, green, blue)
    /// and a transfer curve.
    static func rgb(chromaticities: [Double], curve: Int32, gamma: Double = 2.2) throws(ImageError) -> ColourProfile {
        precondition(chromaticities.count == 8)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let made = hoard_icc_make_rgb(chromaticities, curve, gamma, &output, &size, &message, message.count)
        guard made == 1, let output else { throw .invalidColourProfile(message: String(cString: message)) }
        return try ColourProfile(iccData: ColourDescription.taking(output, count: size))
    }
}
