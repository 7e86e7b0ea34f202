import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Progressive JPEG: a scaled decode reads only the scans its scale needs")
struct ProgressiveJPEGTests {
    /// 640 x 427, libjpeg's standard progressive script (see TestImages/progressive/README.md).
    static let files = ["landscape-420.jpg", "landscape-444.jpg", "landscape-gray.jpg"]
    /// Targets that pick 1/8 (80 px), 1/4 (160 px) and 1/2 (320 px) of the 640-pixel side.
    static let targets = [64, 128, 256]

    static func decode(_ data: Data, target: Int?, reading: Image.ProgressiveReading) throws -> Image {
        var options = target.map(Image.DecodingOptions.decodingTo) ?? Image.DecodingOptions()
        options.progressiveReading = reading
        return try Image(data: data, options: options)
    }

    /// The offsets of `data`'s SOS markers (0xFF 0xDA): inside entropy-coded data a 0xFF is
    /// always followed by 0x00 or a restart marker, so each is a scan's start.
    static func scanStarts(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        return bytes.indices.dropLast().filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
    }

    /// `name` decoded for `target` by reading every scan, and with `reading`; both of the same size.
    static func pair(_ name: String, target: Int, reading: Image.ProgressiveReading) throws
        -> (everyScan: Image, other: Image)
    {
        let data = try TestFiles.testImage("progressive/\(name)")
        let everyScan = try decode(data, target: target, reading: .everyScan)
        let other = try decode(data, target: target, reading: reading)
        #expect(other.width == everyScan.width && other.height == everyScan.height)
        #expect(other.width >= target && other.width < 2 * target)
        return (everyScan, other)
    }

    @Test("exact reading gives the pixels of reading every scan, at 1/8, 1/4 and 1/2", arguments: files, targets)
    func exactMatchesEveryScan(_ name: String, target: Int) throws {
        let (everyScan, exact) = try Self.pair(name, target: target, reading: .exact)
        #expect(PixelMath.maximumDifference(exact, everyScan) == 0)
    }

    @Test("nearly exact reading is within a few levels at 1/8, and exact at 1/4 and 1/2", arguments: files, targets)
    func nearlyExactIsClose(_ name: String, target: Int) throws {
        let (everyScan, near) = try Self.pair(name, target: target, reading: .nearlyExact)
        if target == 64 {
            // Each coefficient may lack its lowest bit: on these files and the benchmark's photos
            // (the DocC article "Measurements behind the design", "Figures behind the source's
            // choices"), at most 6 levels on a pixel and 0.75 on average.
            #expect(PixelMath.maximumDifference(near, everyScan) <= 8)
            #expect(PixelMath.meanDifference(near, everyScan) <= 1)
            #expect(PixelMath.maximumDifference(near, everyScan) > 0, "the refinement scans were skipped")
        } else {
            #expect(PixelMath.maximumDifference(near, everyScan) == 0)
        }
    }

    @Test("the scans after the ones the scale needs are not read: a file cut before its last scan decodes at 1/8 only")
    func laterScansAreNotRead() throws {
        let data = try TestFiles.testImage("progressive/landscape-420.jpg")
        let scans = Self.scanStarts(data)
        try #require(scans.count == 10, "libjpeg's standard script has 10 scans for YCbCr")
        // The last scan refines luma's AC coefficients, which the 1x1 inverse DCT of 1/8 never uses.
        let cut = data.prefix(scans[9])
        let whole = try Self.decode(data, target: 64, reading: .everyScan)
        let fromCut = try Self.decode(cut, target: 64, reading: .exact)
        #expect(PixelMath.maximumDifference(fromCut, whole) == 0)
        #expect(throws: ImageError.truncated(.jpeg, message: "Premature end of JPEG file")) {
            try Self.decode(cut, target: 64, reading: .everyScan)
        }
        #expect(throws: ImageError.truncated(.jpeg, message: "Premature end of JPEG file")) {
            try Self.decode(cut, target: 128, reading: .exact)
        }
    }

    @Test("a header declaring ten times the size its scans cover: warned about, refused when warnings are errors",
          arguments: Image.ProgressiveReading.allCases)
    func declaredSizeBeyondTheData(_ reading: Image.ProgressiveReading) throws {
        var bytes = [UInt8](try TestFiles.testImage("progressive/landscape-420.jpg"))
        let frame = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        // 6400 x 4270 declared, for scans that cover 640 x 427.
        bytes.replaceSubrange(frame + 5..<frame + 9, with: [0x10, 0xAE, 0x19, 0x00])
        let data = Data(bytes)
        var options = Image.DecodingOptions.decodingTo(64)
        options.progressiveReading = reading
        let (image, warnings) = try Image.decodeReportingWarnings(data, options: options)
        #expect(image.width == 800 && image.height == 534)
        #expect(warnings.contains("Corrupt JPEG data: premature end of data segment"), "\(warnings)")
        options.treatsWarningsAsErrors = true
        #expect(throws: ImageError.malformed(.jpeg, message: "Corrupt JPEG data: premature end of data segment")) {
            try Image(data: data, options: options)
        }
    }

    @Test("the scan limit holds when reading stops early", arguments: Image.ProgressiveReading.allCases)
    func scanLimit(_ reading: Image.ProgressiveReading) throws {
        let data = try TestFiles.testImage("progressive/landscape-420.jpg")
        var options = Image.DecodingOptions.decodingTo(64)
        options.progressiveReading = reading
        options.maximumScanCount = 3
        #expect(throws: ImageError.malformed(.jpeg, message: "JPEG has more than 3 scans")) {
            try Image(data: data, options: options)
        }
    }

    @Test("a baseline JPEG and a full-size decode read everything, whatever the setting")
    func baselineAndFullSize() throws {
        let baseline = try TestFiles.testImage("libjpeg-turbo/testorig.jpg")
        let progressive = try TestFiles.testImage("progressive/landscape-444.jpg")
        for reading in Image.ProgressiveReading.allCases {
            #expect(
                PixelMath.maximumDifference(
                    try Self.decode(baseline, target: 32, reading: reading),
                    try Self.decode(baseline, target: 32, reading: .everyScan)) == 0)
            #expect(
                PixelMath.maximumDifference(
                    try Self.decode(progressive, target: nil, reading: reading),
                    try Self.decode(progressive, target: nil, reading: .everyScan)) == 0)
        }
    }

    @Test("a progressive JPEG cut after the scans a small thumbnail needs decodes with the truncation warning, or fails when warnings are errors")
    func truncatedAfterNeededScans() throws {
        let whole = try TestFiles.testImage("progressive/landscape-420.jpg")
        let cut = Data(whole.prefix(whole.count / 3))
        // At 1/8 nearly exact reading stops before the DC's last refinement: before the cut.
        var near = Image.DecodingOptions()
        near.progressiveReading = .nearlyExact
        let (thumbnail, warnings) = try Image.thumbnailReportingWarnings(from: cut, fittingIn: 32, options: near)
        #expect(thumbnail.width == 32)
        #expect(warnings == [Image.truncationWarning])
        #expect(try Image.thumbnailReportingWarnings(from: whole, fittingIn: 32, options: near).warnings.isEmpty)
        var strict = near
        strict.treatsWarningsAsErrors = true
        #expect(throws: ImageError.truncated(.jpeg, message: Image.truncationWarning)) {
            _ = try Image.thumbnail(from: cut, fittingIn: 32, options: strict)
        }
        // Bytes after the end marker (what some cameras append) are not truncation.
        #expect(
            try Image.thumbnailReportingWarnings(from: whole + Data([0, 1, 2, 0xFF, 0x00]), fittingIn: 32, options: near)
                .warnings.isEmpty)
        #expect(JPEGEnd.isPresent(in: whole) && !JPEGEnd.isPresent(in: cut) && !JPEGEnd.isPresent(in: Data()))
    }
}
