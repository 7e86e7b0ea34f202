import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Image format sniffing")
struct ImageFormatTests {
    /// An ISO-BMFF `ftyp` box with `major` and `compatible` brands.
    static func fileType(major: String, compatible: [String]) -> [UInt8] {
        let size = UInt32(16 + 4 * compatible.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array("ftyp\(major)".utf8) + [0, 0, 0, 0]
            + compatible.flatMap { Array($0.utf8) }
    }

    @Test(
        "each format is recognised by its bytes",
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], ImageFormat.png),
            ([0xFF, 0xD8, 0xFF, 0xE0], .jpeg),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
            (Array("GIF87a".utf8), .gif),
            (Array("GIF89a".utf8), .gif),
            (fileType(major: "avif", compatible: ["mif1", "miaf"]), .avif),
            (fileType(major: "avis", compatible: ["msf1"]), .avif),
            (fileType(major: "mif1", compatible: ["miaf", "avif"]), .avif),
        ] as [([UInt8], ImageFormat)])
    func recognised(_ bytes: [UInt8], _ format: ImageFormat) {
        #expect(ImageFormat(sniffing: bytes) == format)
    }

    @Test(
        "near misses are not recognised",
        arguments: [
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8),  // a WAV file
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEB".utf8),  // cut short
            Array("GIF88a".utf8),
            fileType(major: "heic", compatible: ["mif1", "heic"]),  // HEIC: HEVC, which Hoard has no decoder for
            fileType(major: "mif1", compatible: ["miaf"]),
            Array(fileType(major: "mif1", compatible: ["avif"]).prefix(19)),  // the brand cut off
            [0, 0, 0, 8] + Array("ftypavif".utf8),  // a box too small to hold its brand
        ])
    func notRecognised(_ bytes: [UInt8]) {
        #expect(ImageFormat(sniffing: bytes) == nil)
    }

    @Test("names and extensions")
    func names() {
        #expect(ImageFormat.allCases.map(\.name) == ["PNG", "JPEG", "WebP", "GIF", "AVIF"])
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["png", "jpg", "webp", "gif", "avif"])
    }
}
