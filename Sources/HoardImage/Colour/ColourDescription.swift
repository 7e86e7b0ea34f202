import CHoardCodecs
import Foundation

/// What a file says about its colours, read before its pixels: an embedded ICC profile, or the
/// PNG chunks and AVIF code points that describe a colour space without one; turned into the
/// ``ColourProfile`` its pixels are in (`nil`: sRGB) and the warnings for what could not be used.
struct ColourDescription {
    /// The profile the pixels are in, when it is not plainly sRGB.
    var profile: ColourProfile?
    var warnings: [String] = []

    /// Nothing said: sRGB.
    static let srgb = ColourDescription(profile: nil)

    /// A JPEG's APP2 profile, read from the bytes.
    static func jpeg(_ bytes: UnsafeBufferPointer<UInt8>) -> ColourDescription {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let found = hoard_jpeg_icc_profile(bytes.baseAddress, bytes.count, &output, &size, &message, message.count)
        guard found == 1, let output else {
            return found == 0 ? .srgb : ColourDescription(warnings: [String(cString: message) + "; colours read as sRGB"])
        }
        return embedded(Self.taking(output, count: size))
    }

    /// A PNG's `iCCP`, else its `sRGB`, else its `cHRM` with its `gAMA`, read from the bytes.
    static func png(_ bytes: UnsafeBufferPointer<UInt8>) -> ColourDescription {
        var info = hoard_colour_info()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let found = hoard_png_colour(bytes.baseAddress, bytes.count, &info, &output, &size, &message, message.count)
        if found == 1, let output { return embedded(Self.taking(output, count: size)) }
        var description = info.srgb != 0 ? .srgb : pngChunks(info)
        if found == -1 { description.warnings.insert(String(cString: message) + "; profile ignored", at: 0) }
        return description
    }

    /// A WebP's ICCP chunk, from its decoder.
    static func webp(_ decoder: OpaquePointer) -> ColourDescription {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard hoard_webp_decoder_icc(decoder, &bytes, &length) == 1, let bytes else { return .srgb }
        return embedded(Data(bytes: bytes, count: length))
    }

    /// An AVIF's `colr` boxes, from its decoder: the ICC profile, else the nclx code points.
    static func avif(_ decoder: OpaquePointer) -> ColourDescription {
        var info = hoard_colour_info()
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        hoard_avif_decoder_colour(decoder, &info, &bytes, &length)
        if let bytes, length > 0 { return embedded(Data(bytes: bytes, count: length)) }
        return codePoints(primaries: info.cicp_primaries, transfer: info.cicp_transfer)
    }

    /// A copy of a buffer the C layer allocated (a profile: small), which is freed.
    static func taking(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Data {
        defer { hoard_colour_free(buffer) }
        return Data(bytes: buffer, count: count)
    }

    // MARK: - Private

    private static func embedded(_ data: Data) -> ColourDescription {
        do {
            return ColourDescription(profile: try ColourProfile(iccData: data))
        } catch {
            return ColourDescription(warnings: ["\(error); colours read as sRGB"])
        }
    }

    /// sRGB's primaries and white, as x, y pairs: white, red, green, blue.
    private static let srgbPrimaries = [0.3127, 0.3290, 0.640, 0.330, 0.300, 0.600, 0.150, 0.060]

    /// `cHRM` primaries with the `gAMA` curve, both needed: a `gAMA` alone is mostly an encoder's
    /// default (PngSuite's 1.0, many a 1/2.2 meaning sRGB) and is read as sRGB, as Chrome does.
    /// sRGB's primaries with a gamma of 1/2.2 are what encoders such as ImageMagick write for sRGB:
    /// read as sRGB too, as libpng does.
    private static func pngChunks(_ info: hoard_colour_info) -> ColourDescription {
        guard info.has_chromaticities != 0, info.gamma > 0 else { return .srgb }
        let primaries = withUnsafeBytes(of: info.chromaticities) { Array($0.bindMemory(to: Double.self)) }
        let srgbLike = zip(primaries, srgbPrimaries).allSatisfy { abs($0 - $1) < 0.01 } && abs(Int(info.gamma) - 45_455) < 1_000
        if srgbLike { return .srgb }
        return made(primaries, curve: HOARD_CURVE_GAMMA, gamma: 100_000 / Double(info.gamma), from: "PNG cHRM/gAMA")
    }

    /// nclx code points (ISO/IEC 23091-2): BT.709, BT.2020 and Display P3 primaries with the
    /// BT.709, sRGB, gamma 2.2, 2.8 or linear curve. PQ and HLG (HDR) are not tone-mapped: the
    /// values stay as stored, with a warning.
    private static func codePoints(primaries: Int32, transfer: Int32) -> ColourDescription {
        let chromaticities: [Double]? =
            switch primaries {
            case 1, 2: srgbPrimaries
            case 9: [0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046]
            case 12: [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
            default: nil
            }
        let curve: (Int32, Double)? =
            switch transfer {
            case 1, 6, 14, 15: (HOARD_CURVE_BT709, 0)
            case 2, 13: (HOARD_CURVE_SRGB, 0)
            case 4: (HOARD_CURVE_GAMMA, 2.2)
            case 5: (HOARD_CURVE_GAMMA, 2.8)
            case 8: (HOARD_CURVE_GAMMA, 1)
            default: nil
            }
        if transfer == 16 || transfer == 18 {
            return ColourDescription(warnings: [
                "AVIF uses an HDR transfer (\(transfer == 16 ? "PQ" : "HLG")), which is not tone-mapped: values kept as stored"
            ])
        }
        guard let chromaticities, let curve else {
            return ColourDescription(warnings: [
                "AVIF nclx primaries \(primaries) with transfer \(transfer) are not supported; colours read as sRGB"
            ])
        }
        if chromaticities == srgbPrimaries, curve.0 == HOARD_CURVE_SRGB { return .srgb }
        return made(chromaticities, curve: curve.0, gamma: curve.1, from: "AVIF nclx")
    }

    private static func made(_ chromaticities: [Double], curve: Int32, gamma: Double, from source: String)
        -> ColourDescription
    {
        do {
            return ColourDescription(profile: try .rgb(chromaticities: chromaticities, curve: curve, gamma: gamma))
        } catch {
            return ColourDescription(warnings: ["\(source): \(error); colours read as sRGB"])
        }
    }
}
