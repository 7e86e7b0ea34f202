import CHoardCodecs
import Foundation
import HoardSystem

/// A Little CMS conversion from one profile to sRGB for one pixel layout, safe to apply from
/// several threads at once.
///
/// Made through ``cached(for:layout:)``: a batch of photos from one camera shares one transform.
final class ColourTransform: Sendable {
    /// The profile's bytes as an array: LeakSanitizer reported a `Data` kept only in this cache as
    /// leaked (the same profile as an array it does not).
    private struct Key: Hashable {
        let icc: [UInt8]
        let layout: Int32
    }

    /// The most transforms kept; past it the cache starts again (a batch rarely holds more than a
    /// few profiles).
    private static let cacheLimit = 32
    private static let cache = Lock<[Key: ColourTransform]>([:])

    private nonisolated(unsafe) let transform: OpaquePointer
    /// Bytes per pixel in and out.
    let inputChannels: Int
    let outputChannels: Int

    private init(transform: OpaquePointer, inputChannels: Int, outputChannels: Int) {
        self.transform = transform
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
    }

    deinit {
        hoard_colour_transform_destroy(transform)
    }

    /// The transform from `profile` to sRGB for pixels laid out as `layout` (a
    /// `hoard_pixel_layout`), made once per profile and layout.
    ///
    /// - Throws: ``ImageError/invalidColourProfile(message:)`` when Little CMS cannot convert with
    ///   the profile, or its colour space does not match the layout.
    static func cached(for profile: ColourProfile, layout: hoard_pixel_layout) throws(ImageError) -> ColourTransform {
        let key = Key(icc: profile.bytes, layout: Int32(layout.rawValue))
        if let found = cache.withLock({ $0[key] }) { return found }
        var message = [CChar](repeating: 0, count: 200)
        let made = profile.bytes.withUnsafeBufferPointer {
            hoard_colour_transform_create($0.baseAddress, $0.count, Int32(layout.rawValue), &message, message.count)
        }
        guard let made else { throw .invalidColourProfile(message: String(cString: message)) }
        let cmyk = layout == HOARD_LAYOUT_CMYK || layout == HOARD_LAYOUT_CMYK_INVERTED
        let channels = cmyk ? 4 : Int(layout.rawValue)
        let transform = ColourTransform(transform: made, inputChannels: channels, outputChannels: cmyk ? 3 : channels)
        return cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll() }
            if let raced = entries[key] { return raced }
            entries[key] = transform
            return transform
        }
    }

    /// `pixels` (whole pixels of the input layout) converted.
    func apply(to pixels: [UInt8]) -> [UInt8] {
        convert(pixels, with: hoard_colour_transform_apply)
    }

    /// `pixels` converted by `function`, one of the C apply functions.
    private func convert(
        _ pixels: [UInt8],
        with function: (OpaquePointer?, UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, Int) -> Void
    ) -> [UInt8] {
        let count = pixels.count / inputChannels
        return [UInt8](unsafeUninitializedCapacity: count * outputChannels) { output, initialized in
            pixels.withUnsafeBufferPointer { input in function(transform, input.baseAddress, output.baseAddress, count) }
            initialized = count * outputChannels
        }
    }
}

extension ColourTransform {
    /// Whether this transform takes the direct matrix-shaper path (an RGB matrix-shaper profile to
    /// sRGB) rather than Little CMS's general one.
    var isDirect: Bool { hoard_colour_transform_is_direct(transform) != 0 }

    /// ``apply(to:)`` through Little CMS alone: what the direct path is checked against.
    func applyThroughLittleCMS(to pixels: [UInt8]) -> [UInt8] {
        convert(pixels, with: hoard_colour_transform_apply_lcms)
    }
}

extension Image.PixelFormat {
    /// The colour transform layout of these pixels.
    var colourLayout: hoard_pixel_layout {
        switch self {
        case .gray8: HOARD_LAYOUT_GRAY
        case .grayAlpha8: HOARD_LAYOUT_GRAY_ALPHA
        case .rgb8: HOARD_LAYOUT_RGB
        case .rgba8: HOARD_LAYOUT_RGBA
        }
    }
}
