import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--format auto`: PNG only when some pixel is not opaque; an opaque picture saved with an alpha
/// channel (as many PNGs are) becomes a JPEG.
@Suite("hoard thumbnails --format auto and alpha")
struct OpaqueAlphaTests {
    @Test("an RGBA PNG whose alpha is 255 everywhere becomes a .jpg; one with transparency stays PNG")
    func opaqueAlphaBecomesJPEG() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = try Image(data: Data(contentsOf: testImages.appendingPathComponent("exif-orientation/Landscape_1.jpg")))
        let opaque = photo.converted(to: .rgba8)
        let opaquePath = scratch.path("opaque.png")
        try opaque.pngData().write(to: URL(fileURLWithPath: opaquePath))
        let made = try await WebPOutputTests.thumbnail(opaquePath, size: 64, [], scratch: scratch, out: "opaque")
        #expect(made.name.hasSuffix(".jpg") && ImageFormat(sniffing: made.data) == .jpeg, "\(made.name)")
        let transparent = testImages.appendingPathComponent("PngSuite/basn6a08.png").path
        let kept = try await WebPOutputTests.thumbnail(transparent, size: 16, [], scratch: scratch, out: "alpha")
        #expect(kept.name.hasSuffix(".png") && ImageFormat(sniffing: kept.data) == .png, "\(kept.name)")
    }
}
