import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// An entry written by an earlier version of the app, whose `Codable` type has changed since: the
/// same type identifier, bytes that no longer decode.
@Suite("Hoard: entries the app can no longer read")
struct HoardUndecodableTests {
    /// The type as version 1 of the app stored it.
    struct ProfileV1: Codable, Cachable, Equatable {
        var name: String
        static var cacheTypeIdentifier: String { "Profile" }
    }

    /// The same type in version 2: a new required field.
    struct ProfileV2: Codable, Cachable, Equatable {
        var name: String
        var age: Int
        static var cacheTypeIdentifier: String { "Profile" }
    }

    /// Version 1 stores a profile; version 2 opens the same folder, with a log recorder.
    private func upgradedApp(_ fixture: HoardFixture, log: LogRecorder) async throws -> Hoard {
        try await fixture.hoard.store(ProfileV1(name: "Ada"), forKey: "profile")
        var configuration = fixture.hoard.configuration
        configuration.logger = log.logger()
        return try Hoard(configuration: configuration)
    }

    @Test("retrieve is a miss; the entry is removed from every tier, logged with the decoder's message and counted")
    func retrieveIsAMiss() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let log = LogRecorder()
        let upgraded = try await upgradedApp(fixture, log: log)

        #expect(try await upgraded.retrieve(ProfileV2.self, forKey: "profile") == nil)
        #expect(try upgraded.storedBytes(forKey: "profile") == nil, "removed from disk")
        #expect(try await fixture.hoard.retrieve(ProfileV1.self, forKey: "profile") != nil, "the old instance's memory")
        let statistics = upgraded.statistics
        #expect(statistics.undecodableEntries == 1 && statistics.misses == 1 && statistics.hits == 0)
        let warnings = log.lines(containing: "no longer decodes")
        #expect(warnings.count == 1 && warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["key"] == "profile")
        #expect(warnings.first?.metadata["error"].map { "\($0)".contains("age") } == true, "the decoder's message")
    }

    @Test("value(forKey:fetch:) fetches anew and stores the new shape")
    func fetchesAnew() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let upgraded = try await upgradedApp(fixture, log: LogRecorder())
        let fetched = ProfileV2(name: "Ada", age: 36)
        let value = try await upgraded.value(forKey: "profile") { fetched }
        #expect(value == fetched)
        #expect(upgraded.statistics.fetches == 1)
        upgraded.clearMemory()
        #expect(try await upgraded.retrieve(ProfileV2.self, forKey: "profile") == fetched)
    }

    @Test("reading as another type still throws typeMismatch, and keeps the entry")
    func wrongTypeStillThrows() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        try await fixture.hoard.store("text", forKey: "k")
        fixture.hoard.clearMemory()
        await #expect(throws: HoardError.self) { try await fixture.hoard.retrieve(Int.self, forKey: "k") }
        #expect(try await fixture.hoard.retrieve(String.self, forKey: "k") == "text")
        #expect(fixture.hoard.statistics.undecodableEntries == 0)
    }
}
