import Testing

@testable import HoardImage

@Suite("Colour profile descriptions")
struct ColourProfileDescriptionTests {
    @Test("a profile's desc tag, printable ASCII")
    func description() throws {
        let p3 = try ColourProfile(iccData: TestFiles.testImage("colour/p3.icc"))
        let text = try #require(p3.description)
        #expect(text.contains("P3"), "\(text)")
        #expect(text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) })
    }
}
