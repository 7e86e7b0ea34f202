import Testing

@testable import HoardImage

@Suite("Image canvas")
struct CanvasTests {
    /// 2 x 1: a red pixel, then a half-transparent blue one.
    static let pair = try! Image(width: 2, height: 1, format: .rgba8, pixels: [255, 0, 0, 255, 0, 0, 255, 128])

    @Test("placed on a coloured canvas: the image where asked, the colour around it, alpha kept")
    func coloured() throws {
        let canvas = try Self.pair.placed(onWidth: 4, height: 2, x: 1, y: 1, colour: (10, 20, 30))
        #expect(canvas.width == 4 && canvas.height == 2 && canvas.format == .rgba8)
        #expect(Array(canvas.pixels[0..<4]) == [10, 20, 30, 255])
        #expect(Array(canvas.pixels[20..<24]) == [255, 0, 0, 255])
        #expect(Array(canvas.pixels[24..<28]) == [0, 0, 255, 128])
        let opaque = try Image(width: 1, height: 1, format: .gray8, pixels: [200])
        let rgb = try opaque.placed(onWidth: 2, height: 1, x: 1, y: 0, colour: (1, 2, 3))
        #expect(rgb.format == .rgb8 && rgb.pixels == [1, 2, 3, 200, 200, 200])
    }

    @Test("a transparent canvas; an image outside the canvas is refused")
    func transparent() throws {
        let opaque = try Image(width: 1, height: 1, format: .rgb8, pixels: [9, 8, 7])
        let canvas = try opaque.placed(onWidth: 2, height: 1, x: 0, y: 0, colour: nil)
        #expect(canvas.pixels == [9, 8, 7, 255, 0, 0, 0, 0])
        #expect(throws: ImageError.self) { try opaque.placed(onWidth: 2, height: 1, x: 2, y: 0, colour: nil) }
        #expect(throws: ImageError.self) { try Self.pair.placed(onWidth: 1, height: 1, x: 0, y: 0, colour: nil) }
    }

    @Test("flattened onto a colour: alpha blends each channel with it")
    func flattened() {
        let flat = Self.pair.flattened(onto: (255, 255, 0))
        #expect(flat.format == .rgb8)
        #expect(Array(flat.pixels[0..<3]) == [255, 0, 0])
        // 128/255 of blue over yellow.
        #expect(Array(flat.pixels[3..<6]) == [127, 127, 128])
    }
}
