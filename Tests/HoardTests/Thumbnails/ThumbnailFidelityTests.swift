import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// By default a thumbnail is as faithful as `vipsthumbnail`'s, measured as PSNR
/// against a full-resolution Lanczos-3 thumbnail (Pillow `thumbnail(..., LANCZOS,
/// reducing_gap=None)`), on textured photos as baseline and progressive JPEG, WebP, GIF and PNG,
/// at boxes that make every decode scale (1/2, 1/4, 1/8, full size) the one chosen.
///
/// The set, its reference thumbnails and vips's PSNR for each case are committed in
/// `TestImages/fidelity` (made by its `make_fidelity_set.py`).
@Suite("Thumbnail fidelity against full-resolution Lanczos")
struct ThumbnailFidelityTests {
    /// A row of `fidelity.tsv`: a file of the set, a box, and vips's PSNR for them.
    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var box: Int
        var vipsPSNR: Double

        var description: String { "\(file) in \(box)" }

        /// The set the case's PSNR is judged in: its file's format (progressive JPEG apart).
        var group: String {
            if file.hasSuffix("-progressive.jpg") { return "progressive JPEG" }
            if file.hasSuffix(".jpg") { return "baseline JPEG" }
            if file.hasSuffix(".webp") { return "WebP" }
            return "GIF and PNG"
        }

        /// The reference thumbnail's name in `references/`, as `make_fidelity_set.py` writes it.
        var referenceName: String {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return "fidelity/references/\(name.replacingOccurrences(of: ".", with: "_"))-\(box).png"
        }
    }

    static let cases: [Case] = {
        guard let table = try? TestFiles.testImage("fidelity/fidelity.tsv"), let text = String(data: table, encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard !line.hasPrefix("#"), fields.count == 3, let box = Int(fields[1]), let psnr = Double(fields[2]) else { return nil }
            return Case(file: fields[0], box: box, vipsPSNR: psnr)
        }
    }()

    /// The PSNR of `case`'s thumbnail made with `decodeScale` against its reference.
    static func psnr(_ case: Case, decodeScale: Image.DecodeScale) throws -> Double {
        let source = try TestFiles.testImage("fidelity/\(`case`.file)")
        let reference = try Image(data: TestFiles.testImage(`case`.referenceName))
        let key = try ThumbnailKey(source: "fidelity", size: `case`.box, format: .png, decodeScale: decodeScale)
        let thumbnail = try key.thumbnail(from: source)
        try #require(
            thumbnail.width == reference.width && thumbnail.height == reference.height && thumbnail.format == reference.format,
            "\(`case`): \(thumbnail.width) x \(thumbnail.height) \(thumbnail.format) against \(reference.width) x \(reference.height) \(reference.format)")
        return PixelMath.psnr(thumbnail, reference)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
    }

    @Test("the set is whole: 33 cases, each format, every decode scale")
    func setIsWhole() {
        #expect(Self.cases.count == 33)
        #expect(Set(Self.cases.map(\.group)) == ["baseline JPEG", "progressive JPEG", "WebP", "GIF and PNG"])
    }

    @Test("faithful (the default): in each format, the median within 1 dB of vips's and the worst within 2 dB")
    func faithfulMatchesVips() throws {
        var byGroup: [String: [(hoard: Double, vips: Double)]] = [:]
        for `case` in Self.cases {
            let measured = try Self.psnr(`case`, decodeScale: .faithful)
            byGroup[`case`.group, default: []].append((measured, `case`.vipsPSNR))
        }
        for (group, values) in byGroup {
            let hoard = values.map(\.hoard)
            let vips = values.map(\.vips)
            #expect(Self.median(hoard) >= Self.median(vips) - 1, "\(group): median \(Self.median(hoard)) dB, vips \(Self.median(vips)) dB")
            #expect(hoard.min()! >= vips.min()! - 2, "\(group): worst \(hoard.min()!) dB, vips \(vips.min()!) dB")
        }
    }

    @Test("fast is opt-in and measurably less faithful where it decodes smaller: 1/4 instead of 1/2 for 256 px")
    func fastIsLessFaithful() throws {
        let textured = try #require(Self.cases.first { $0.file == "OneStandsOut.jpg" && $0.box == 256 })
        let faithful = try Self.psnr(textured, decodeScale: .faithful)
        let fast = try Self.psnr(textured, decodeScale: .fast)
        // Measured: 45.8 dB against 35.4 dB (the block averages of 1/4 scale alias the texture).
        #expect(faithful - fast > 5, "faithful \(faithful) dB, fast \(fast) dB")
        #expect(try Self.psnr(textured, decodeScale: .faithful) == faithful, "deterministic")
    }
}
