// libFuzzer harness: bytes through the Image layer, as a cache read does: sniff, decode (EXIF
// orientation applied), and for small results resize, convert and encode-then-decode again.
import Foundation

@testable import HoardCore
@testable import HoardImage

@_cdecl("LLVMFuzzerTestOneInput")
public func imageFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let data = Data(bytes)
    let hash = FuzzSupport.hash(bytes)
    var options = Image.DecodingOptions()
    options.maximumPixelCount = FuzzSupport.maximumPixelCount
    // The defaults for three inputs in four; the rest flip one policy or ask for downscaling.
    switch hash & 7 {
    case 4: options.appliesOrientation = false
    case 5: options.allowsTruncatedData = true
    case 6: options.treatsWarningsAsErrors = true
    case 7: options.targetSize = 1 << Int((hash >> 3) % 10)
    default: break
    }
    let decoded: (image: Image, warnings: [String])
    do {
        decoded = try Image.decodeReportingWarnings(data, options: options)
    } catch {
        checkDecodingError(error, data: data, options: options)
        return 0
    }
    let image = decoded.image
    FuzzSupport.check(image.width > 0 && image.height > 0, "empty image \(image.width) x \(image.height)")
    FuzzSupport.check(
        image.pixels.count == image.width * image.height * image.format.channelCount,
        "\(image.pixels.count) bytes for \(image.width) x \(image.height) \(image.format)")
    FuzzSupport.check(
        image.width * image.height <= options.maximumPixelCount, "\(image.width) x \(image.height) over the limit")
    FuzzSupport.check(decoded.warnings.allSatisfy { !$0.isEmpty }, "an empty warning line")
    // The rest costs O(pixels) several times over: only for images that keep executions fast.
    guard image.width * image.height <= 1 << 18 else { return 0 }
    exercise(image, hash: hash)
    return 0
}

/// Every error a decode throws is one of the documented decode cases, with a message.
private func checkDecodingError(_ error: ImageError, data: Data, options: Image.DecodingOptions) {
    FuzzSupport.check(!error.description.isEmpty, "empty description")
    switch error {
    case .emptyData:
        FuzzSupport.check(data.isEmpty, "emptyData for \(data.count) bytes")
    case .unrecognizedFormat(let leadingBytes):
        FuzzSupport.check(ImageFormat(sniffing: data) == nil, "unrecognizedFormat for a sniffable file")
        FuzzSupport.check(leadingBytes == Array(data.prefix(8)), "leading bytes differ")
    case .tooLarge(_, let width, let height, let limit):
        FuzzSupport.check(limit == options.maximumPixelCount, "limit \(limit)")
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        FuzzSupport.check(overflow || pixelCount > limit, "tooLarge for \(width) x \(height) under \(limit)")
    case .malformed(_, let message), .truncated(_, let message), .unsupported(_, let message),
        .outOfMemory(_, let message):
        FuzzSupport.check(!message.isEmpty, "\(error) without a message")
    case .encodingFailed, .invalidDimensions, .pixelCountMismatch, .invalidQuality, .invalidValue,
        .invalidColourProfile:
        // A profile that cannot be used is ignored with a warning, never thrown by a decode.
        FuzzSupport.fail("decoding threw a non-decoding error: \(error)")
    }
}

/// Resizing, conversion and both encoders on a decoded image; PNG must round-trip exactly.
private func exercise(_ image: Image, hash: UInt32) {
    let filters = Image.ResamplingFilter.allCases
    let filter = filters[Int(hash >> 8) % filters.count]
    let box = 1 + Int((hash >> 12) % 96)
    let resized: Image
    do {
        resized = try image.resized(toFit: box, filter: filter)
    } catch {
        FuzzSupport.fail("resizing into a box of \(box) threw: \(error)")
    }
    FuzzSupport.check(
        max(resized.width, resized.height) == min(box, max(image.width, image.height)), "resize missed the box")
    FuzzSupport.check(
        resized.pixels.count == resized.width * resized.height * resized.format.channelCount, "resized size")
    let formats = Image.PixelFormat.allCases
    let converted = image.converted(to: formats[Int(hash >> 20) % formats.count])
    FuzzSupport.check(converted.width == image.width && converted.height == image.height, "conversion changed the size")
    do {
        let png = try image.pngData(compressionLevel: 1)
        let again = try Image(data: png)
        FuzzSupport.check(again == image, "PNG round trip changed the pixels")
        // What a cache stores for the image (JPEG when opaque), read back as the cache would.
        let stored = try image.encode()
        let read = try Image.decode(stored)
        FuzzSupport.check(read.width == image.width && read.height == image.height, "cache round trip changed the size")
    } catch ImageError.encodingFailed(.jpeg, _) where max(image.width, image.height) > 65_500 {
        // libjpeg's own limit: wider images are PNG-only.
    } catch {
        FuzzSupport.fail("encoding a decoded image failed: \(error)")
    }
}
