import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Hoard: removing groups of entries")
struct HoardGroupRemovalTests {
    /// Stores values of four types; the odd-numbered ones are then dropped from memory, so that
    /// each group lives in both tiers, or on disk only.
    private func populated(_ fixture: HoardFixture) async throws -> [String: Data] {
        let hoard = fixture.hoard
        try await hoard.store("a string", forKey: "text/1")
        try await hoard.store(Data([1, 2, 3]), forKey: "blob/1")
        try await hoard.store(User(id: 1, name: "Ada"), forKey: "user/1")
        try await hoard.store(User(id: 2, name: "Grace"), forKey: "user/2")
        try await hoard.store(try EncodingTests.pattern(.rgb8), forKey: "https://example.com/a.jpg size=64")
        try await hoard.store(try EncodingTests.pattern(.rgba8), forKey: "https://example.com/a.jpg size=128")
        try await hoard.store(try EncodingTests.pattern(.rgb8), forKey: "https://example.com/b.jpg size=64")
        hoard.clearMemory()
        _ = try await hoard.retrieve(User.self, forKey: "user/1")  // back in memory too
        _ = try await hoard.retrieve(String.self, forKey: "text/1")
        var bytes: [String: Data] = [:]
        for entry in try hoard.diskEntries() {
            bytes[entry.key] = try hoard.storedBytes(forKey: entry.key)?.bytes
        }
        return bytes
    }

    @Test("removeAll(ofType:) removes that type's values from both tiers and nothing else")
    func byType() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let before = try await populated(fixture)
        let hoard = fixture.hoard
        #expect(try await hoard.removeAll(ofType: User.self) == 2)
        #expect(try await hoard.retrieve(User.self, forKey: "user/1") == nil, "memory and disk")
        #expect(try await hoard.retrieve(User.self, forKey: "user/2") == nil)
        for (key, bytes) in before where !key.hasPrefix("user/") {
            #expect(try hoard.storedBytes(forKey: key)?.bytes == bytes, "\(key) intact")
        }
        #expect(try await hoard.removeAll(ofType: Image.self) == 3)
        #expect(try hoard.diskEntries().map(\.key).sorted() == ["blob/1", "text/1"])
        #expect(try await hoard.retrieve(String.self, forKey: "text/1") == "a string")
    }

    @Test("removeAll(where:) removes every variant of one URL, in both tiers, and nothing else")
    func byKey() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let before = try await populated(fixture)
        let hoard = fixture.hoard
        _ = try await hoard.retrieve(Image.self, forKey: "https://example.com/a.jpg size=64")  // in memory
        let removed = try await hoard.removeAll { $0.hasPrefix("https://example.com/a.jpg ") }
        #expect(removed == 2)
        #expect(try await hoard.retrieve(Image.self, forKey: "https://example.com/a.jpg size=64") == nil)
        #expect(try await hoard.retrieve(Image.self, forKey: "https://example.com/a.jpg size=128") == nil)
        for (key, bytes) in before where !key.hasPrefix("https://example.com/a.jpg ") {
            #expect(try hoard.storedBytes(forKey: key)?.bytes == bytes, "\(key) intact")
        }
        #expect(try await hoard.removeAll { _ in false } == 0)
    }
}
