import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--format avif`: `.avif` files at `--quality` (60 when not given), a cache key of their own;
/// `hoard url --format avif`.
@Suite("hoard thumbnails --format avif")
struct AVIFOutputCommandTests {
    @Test("a photo becomes an .avif of the expected size, close to the exact thumbnail; --quality changes it")
    func photo() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = WebPOutputTests.photo
        let avif = try await WebPOutputTests.thumbnail(photo, size: 256, ["--format", "avif"], scratch: scratch, out: "avif")
        #expect(avif.name.hasSuffix(".avif") && ImageFormat(sniffing: avif.data) == .avif, "\(avif.name)")
        let image = try Image(data: avif.data)
        #expect(image.width == 256 && image.height == 171)
        let exact = try ThumbnailKey(file: photo, size: 256).thumbnail(from: Data(contentsOf: URL(fileURLWithPath: photo)))
        #expect(WebPOutputTests.psnr(image, exact) >= 30, "\(WebPOutputTests.psnr(image, exact)) dB")
        let explicit = try await WebPOutputTests.thumbnail(
            photo, size: 256, ["--format", "avif", "--quality", "60"], scratch: scratch, out: "sixty")
        #expect(explicit.status == "cached" && explicit.data == avif.data, "60 is the AVIF default")
        let low = try await WebPOutputTests.thumbnail(
            photo, size: 256, ["--format", "avif", "--quality", "20"], scratch: scratch, out: "low")
        #expect(low.status == "made" && low.data.count < avif.data.count)
    }

    @Test("hoard url --format avif writes f:avif")
    func url() async throws {
        let outcome = try await HoardTool.run(["url", "https://images.example/a.jpg", "--width", "64", "--format", "avif", "--unsigned"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("/f:avif/"))
    }
}
