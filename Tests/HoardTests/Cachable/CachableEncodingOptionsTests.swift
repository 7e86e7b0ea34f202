import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

/// An option of the tests' own: a module above the core declares its settings this way.
private enum Spacing: CachableEncodingOption {
    static let defaultValue = 4

    static func validate(_ value: Int) throws(InvalidValueError) {
        try InvalidValueError.check(value, atLeast: 0, "Spacing")
    }
}

@Suite("Cachable encoding options")
struct CachableEncodingOptionsTests {
    @Test("an option not set reads as its default; a set one as its value, the others untouched")
    func defaultsAndValues() throws {
        var options = CachableEncodingOptions()
        #expect(options[Spacing.self] == 4)
        #expect(options.jpegQuality == Image.cacheJPEGQuality)
        options[Spacing.self] = 9
        #expect(options[Spacing.self] == 9)
        #expect(options.jpegQuality == Image.cacheJPEGQuality)
        options.jpegQuality = 40
        #expect(options[JPEGQuality.self] == 40)
        #expect(options[Spacing.self] == 9)
        try options.validate()
    }

    @Test("validate() applies each set option's own rule")
    func validation() {
        var options = CachableEncodingOptions()
        options[Spacing.self] = -1
        #expect(throws: InvalidValueError.self) { try options.validate() }
        options[Spacing.self] = 0
        options.jpegQuality = 101
        let error = #expect(throws: InvalidValueError.self) { try options.validate() }
        #expect(error?.field == "Hoard.Configuration.jpegQuality")
    }

    @Test("an opaque Image encodes as JPEG at the options' quality")
    func imageReadsItsOption() throws {
        let photo = try Image(data: TestFiles.testImage("exif-orientation/Landscape_1.jpg"))
        var low = CachableEncodingOptions()
        low.jpegQuality = 20
        let small = try photo.encode(with: low)
        let large = try photo.encode(with: CachableEncodingOptions(jpegQuality: 95))
        #expect(small.count < large.count)
        #expect(small == (try photo.jpegData(quality: 20)))
    }
}
