import Testing

@testable import HoardImage

@Suite("Blur and sharpen")
struct FilterTests {
    /// 20 x 4 RGB: black on the left half, white on the right.
    static let edge = try! Image(
        width: 20, height: 4, format: .rgb8, pixels: (0..<80).flatMap { index in [UInt8](repeating: index % 20 < 10 ? 0 : 255, count: 3) })

    static func red(_ image: Image, _ x: Int) -> Int { Int(image.pixels[(20 + x) * image.format.channelCount]) }

    @Test("a flat image stays flat; a blur spreads an edge evenly on both sides")
    func blur() throws {
        let flat = try Image(width: 8, height: 8, format: .rgb8, pixels: [UInt8](repeating: 99, count: 192))
        #expect(try flat.blurred(sigma: 2) == flat && (try flat.sharpened(sigma: 2)) == flat)
        let soft = try Self.edge.blurred(sigma: 1.5)
        #expect(Self.red(soft, 9) > 20 && Self.red(soft, 10) < 235)
        #expect(abs(Self.red(soft, 9) + Self.red(soft, 10) - 255) <= 1, "symmetric around the edge")
        #expect(Self.red(soft, 0) == 0 && Self.red(soft, 19) == 255)
    }

    @Test("sharpen overshoots at an edge and keeps flat parts")
    func sharpen() throws {
        var pixels: [UInt8] = []
        for index in 0..<80 { pixels += [UInt8](repeating: index % 20 < 10 ? 60 : 190, count: 3) }
        let image = try Image(width: 20, height: 4, format: .rgb8, pixels: pixels)
        let crisp = try image.sharpened(sigma: 1)
        #expect(Self.red(crisp, 9) < 60 && Self.red(crisp, 10) > 190)
        #expect(Self.red(crisp, 0) == 60 && Self.red(crisp, 19) == 190)
    }

    @Test("transparent pixels lend no colour to a blur; alpha is blurred too")
    func alpha() throws {
        var pixels: [UInt8] = []
        for index in 0..<80 { pixels += index % 20 < 10 ? [255, 0, 0, 255] : [0, 255, 0, 0] }
        let image = try Image(width: 20, height: 4, format: .rgba8, pixels: pixels)
        let soft = try image.blurred(sigma: 1.5)
        let at = (21 + 10) * 4  // the first transparent column, row 1
        #expect(soft.pixels[at + 3] > 0 && soft.pixels[at + 3] < 128)
        #expect(soft.pixels[at] > 250 && soft.pixels[at + 1] < 5, "its colour is the red it borrowed, not the hidden green")
    }

    @Test("sigma above 0 and at most 100")
    func sigma() {
        for sigma in [0, -1, 101, .nan, .infinity] {
            #expect(throws: ImageError.self) { try Self.edge.blurred(sigma: sigma) }
            #expect(throws: ImageError.self) { try Self.edge.sharpened(sigma: sigma) }
        }
    }
}
