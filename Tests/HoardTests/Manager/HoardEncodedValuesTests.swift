import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Hoard encoded values")
struct HoardEncodedValuesTests {
    @Test("storeEncoded keeps the bytes as they are, typed as T; retrieve decodes them, retrieveEncoded does not")
    func roundTrip() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let image = try Image(width: 3, height: 2, format: .rgb8, pixels: Array(0..<18).map { UInt8($0 * 14) })
        let jpeg = try image.jpegData(quality: 40)  // not the cache's own quality (90)
        try await hoard.storeEncoded(jpeg, as: Image.self, forKey: "thumb")
        let stored = try #require(try hoard.storedBytes(forKey: "thumb"))
        #expect(stored.typeIdentifier == "Hoard.Image" && stored.bytes == jpeg)
        #expect(try await hoard.retrieveEncoded(Image.self, forKey: "thumb") == jpeg)
        let decoded = try #require(try await hoard.retrieve(Image.self, forKey: "thumb"))
        #expect(decoded == (try Image(data: jpeg)))
        // Another process sees the same.
        #expect(try await fixture.reopened().retrieveEncoded(Image.self, forKey: "thumb") == jpeg)
        let statistics = hoard.statistics
        #expect(statistics.stores == 1 && statistics.hits(in: .disk) >= 1)
    }

    @Test("retrieveEncoded checks the type, and misses on an absent, expired or expire-all'd entry")
    func freshnessAndType() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("text", forKey: "s")
        await #expect(throws: HoardError.self) { try await hoard.retrieveEncoded(Image.self, forKey: "s") }
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "s") == Data("text".utf8))
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "absent") == nil)
        try await hoard.storeEncoded(Data("soon".utf8), as: String.self, forKey: "e", expiry: .seconds(10))
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "e") != nil)
        fixture.clock.advance(by: 11)
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "e") == nil)
        try await hoard.expireAll()
        #expect(try await hoard.retrieveEncoded(String.self, forKey: "s") == nil)
    }

    @Test("storeEncoded replaces the memory tier's value, so the next read decodes the new bytes")
    func dropsMemory() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("old", forKey: "k")
        #expect(try await hoard.entry(String.self, forKey: "k")?.source == .memory)
        try await hoard.storeEncoded(Data("new".utf8), as: String.self, forKey: "k")
        let entry = try await hoard.entry(String.self, forKey: "k")
        #expect(entry?.value == "new" && entry?.source == .disk)
    }

    @Test("storeEncoded refuses a non-finite expiry, follows the insertion policy, and does nothing with caching off")
    func rules() async throws {
        let fixture = try HoardFixture { $0.insertionPolicy = .maximumByteCount(4) }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        await #expect(throws: HoardError.self) {
            try await hoard.storeEncoded(Data("x".utf8), as: String.self, forKey: "k", expiry: .seconds(.nan))
        }
        try await hoard.storeEncoded(Data("abc".utf8), as: String.self, forKey: "k")
        try await hoard.storeEncoded(Data("too long".utf8), as: String.self, forKey: "k")
        #expect(try hoard.storedBytes(forKey: "k") == nil, "refused, and the older value removed")
        #expect(hoard.statistics.refusedStores == 1)

        let off = try HoardFixture { $0.isCachingEnabled = false }
        defer { off.folder.remove() }
        try await off.hoard.storeEncoded(Data("abc".utf8), as: String.self, forKey: "k")
        #expect(try off.hoard.storedBytes(forKey: "k") == nil)
        #expect(try await off.hoard.retrieveEncoded(String.self, forKey: "k") == nil)
    }
}
