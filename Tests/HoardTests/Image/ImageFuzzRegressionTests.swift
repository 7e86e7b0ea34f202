import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// Images the fuzzers in `Fuzz/` crashed on (`TestImages/fuzz-regressions/`, whose README says
/// which harness found each): every one must now fail with a typed ``ImageError`` that prints.
@Suite("Fuzz regressions: images")
struct ImageFuzzRegressionTests {
    static let files =
        TestFiles.testImageNames(in: "fuzz-regressions", suffix: ".png")
        + TestFiles.testImageNames(in: "fuzz-regressions", suffix: ".jpg")

    @Test("throws a typed error with a description", arguments: files)
    func throwsTypedError(_ name: String) throws {
        let data = try TestFiles.testImage("fuzz-regressions/" + name)
        let error = #expect(throws: ImageError.self) { try Image(data: data) }
        #expect(error.map { !$0.description.isEmpty } == true)
    }

    /// Found by the `image` harness: `description` multiplied the sides in `Int`, which traps for
    /// sides over about 3.04e9 (a PNG's IHDR holds up to 2^32 - 1 each).
    @Test("a PNG declaring 3065427638 x 3065427638 is refused, and the error prints without trapping")
    func pixelCountOverflowingInt() throws {
        let data = try TestFiles.testImage("fuzz-regressions/png-ihdr-sides-product-overflows-int.png")
        let expected = ImageError.tooLarge(
            .png, width: 3_065_427_638, height: 3_065_427_638, maximumPixelCount: 64_000_000)
        #expect(throws: expected) { try Image(data: data) }
        #expect(
            expected.description
                == "PNG declares 3065427638 x 3065427638 pixels (more than 9223372036854775807), "
                + "more than the limit of 64000000")
        // The largest sides an IHDR can declare, and a product that still fits.
        let largest = ImageError.tooLarge(.png, width: 4_294_967_295, height: 4_294_967_295, maximumPixelCount: 1)
        #expect(largest.description.contains("(more than 9223372036854775807)"))
        let fits = ImageError.tooLarge(.png, width: 3_000_000_000, height: 3_000_000_000, maximumPixelCount: 1)
        #expect(fits.description.contains("(9000000000000000000)"))
    }

    /// Found by the `png` harness among its seeds (libpng's own `crashers/huge_sCAL_chunk.png`):
    /// libpng allocated the sCAL chunk's declared 1 GiB before reading it, which libFuzzer reports
    /// as an out-of-memory. The chunk is now skipped without being buffered; the harness's
    /// `-rss_limit_mb=512` (which also fails any larger single malloc) is what checks the memory.
    @Test("a 57-byte PNG declaring a 1 GiB sCAL chunk is truncated, and its chunk is not buffered")
    func hugeAncillaryChunk() throws {
        let data = try TestFiles.testImage("fuzz-regressions/png-scal-chunk-declares-1gib.png")
        #expect(throws: ImageError.truncated(.png, message: "Read beyond end of data")) { try Image(data: data) }
    }
}
