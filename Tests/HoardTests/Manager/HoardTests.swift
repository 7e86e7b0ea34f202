import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

struct User: Codable, Cachable, Identifiable, Equatable {
    var id: Int
    var name: String
}

struct Team: Codable, Cachable, Identifiable, Equatable {
    var id: Int
    var members: [String]
}

/// A `Hoard` in its own temporary folder with a clock the test moves.
struct HoardFixture {
    let folder: TemporaryDirectory
    let clock = TestClock()
    let hoard: Hoard

    init(function: String = #function, configure: (inout Hoard.Configuration) -> Void = { _ in }) throws {
        folder = try TemporaryDirectory(function: function)
        var configuration = Hoard.Configuration(name: "test", directory: folder.cacheURL)
        configuration.now = clock.closure
        configure(&configuration)
        do {
            hoard = try Hoard(configuration: configuration)
        } catch {
            folder.remove()  // the test gets no fixture to remove it with
            throw error
        }
    }

    /// A second `Hoard` on the same folder: what another process would see.
    func reopened() throws -> Hoard {
        var configuration = hoard.configuration
        configuration.now = clock.closure
        return try Hoard(configuration: configuration)
    }
}

@Suite("Hoard")
struct HoardTests {
    @Test("stores and retrieves every kind of Cachable, byte for byte, from memory and from disk")
    func roundTrips() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let image = try EncodingTests.pattern(.rgba8)
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        try await hoard.store("héllo ✨", forKey: "string")
        try await hoard.store(bytes, forKey: "data")
        try await hoard.store(User(id: 1, name: "Ada"), forKey: "user")
        try await hoard.store([1, 2, 3], forKey: "array")
        try await hoard.store(image, forKey: "image")
        for pass in ["memory", "disk"] {
            #expect(try await hoard.retrieve(String.self, forKey: "string") == "héllo ✨", "\(pass)")
            #expect(try await hoard.retrieve(Data.self, forKey: "data") == bytes, "\(pass)")
            #expect(try await hoard.retrieve(User.self, forKey: "user") == User(id: 1, name: "Ada"), "\(pass)")
            #expect(try await hoard.retrieve([Int].self, forKey: "array") == [1, 2, 3], "\(pass)")
            #expect(try await hoard.retrieve(Image.self, forKey: "image") == image, "\(pass)")
            hoard.clearMemory()
        }
        // Another instance on the same folder reads the same bytes.
        let other = try fixture.reopened()
        #expect(try await other.retrieve(Data.self, forKey: "data") == bytes)
        #expect(try await hoard.retrieve(String.self, forKey: "missing") == nil)
    }

    @Test("reads check memory, then disk; a disk hit is promoted to memory")
    func tiers() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("value", forKey: "k")
        #expect(try await hoard.entry(String.self, forKey: "k")?.source == .memory)
        hoard.clearMemory()
        #expect(try await hoard.entry(String.self, forKey: "k")?.source == .disk)
        #expect(try await hoard.entry(String.self, forKey: "k")?.source == .memory)
        // clearMemory keeps the disk; remove drops both.
        try await hoard.remove(forKey: "k")
        #expect(try await hoard.entry(String.self, forKey: "k") == nil)
        hoard.clearMemory()
        #expect(try await hoard.retrieve(String.self, forKey: "k") == nil)
    }

    @Test("entry metadata: cachedAt, expiresAt, age")
    func metadata() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let start = fixture.clock.now
        try await fixture.hoard.store(42, forKey: "answer", expiry: .seconds(100))
        fixture.clock.advance(by: 30)
        let entry = try #require(try await fixture.hoard.entry(Int.self, forKey: "answer"))
        #expect(entry.value == 42)
        #expect(entry.cachedAt == start)
        #expect(entry.expiresAt == start.addingTimeInterval(100))
        #expect(entry.age == 30)
        fixture.hoard.clearMemory()
        let fromDisk = try #require(try await fixture.hoard.entry(Int.self, forKey: "answer"))
        #expect(fromDisk.source == .disk)
        #expect(abs(fromDisk.cachedAt.timeIntervalSince(start)) < 0.001)
        #expect(abs((fromDisk.expiresAt ?? .distantPast).timeIntervalSince(start.addingTimeInterval(100))) < 0.001)
    }

    @Test("an expired value is never returned, from either tier; promotion keeps the remaining expiry")
    func expiry() async throws {
        let fixture = try HoardFixture { $0.defaultExpiry = .seconds(60) }
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store("short", forKey: "a")  // default expiry: 60 s
        try await hoard.store("long", forKey: "b", expiry: .seconds(100))
        try await hoard.store("forever", forKey: "c", expiry: .never)
        fixture.clock.advance(by: 59)
        #expect(try await hoard.retrieve(String.self, forKey: "a") == "short")
        hoard.clearMemory()
        #expect(try await hoard.retrieve(String.self, forKey: "b") == "long")  // promoted from disk at t=59
        fixture.clock.advance(by: 1)
        #expect(try await hoard.retrieve(String.self, forKey: "a") == nil)
        fixture.clock.advance(by: 40)
        // In memory since t=59, but its expiry is the disk entry's: t=100.
        #expect(try await hoard.entry(String.self, forKey: "b") == nil)
        #expect(try await hoard.retrieve(String.self, forKey: "c") == "forever")
    }

    @Test("retrieving with the wrong type throws, from memory and from disk")
    func typeMismatch() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        // JSON "42" would decode as String bytes if types were not recorded.
        try await hoard.store(42, forKey: "number")
        for tier in ["memory", "disk"] {
            await #expect(throws: HoardError.self, "\(tier)") { try await hoard.retrieve(String.self, forKey: "number") }
            do {
                _ = try await hoard.retrieve(Data.self, forKey: "number")
                Issue.record("\(tier): no error")
            } catch HoardError.typeMismatch(let key, let expected, let stored) {
                #expect(key == "number" && expected == "Foundation.Data" && stored == "Swift.Int")
            }
            hoard.clearMemory()
        }
        #expect(try await hoard.retrieve(Int.self, forKey: "number") == 42)
    }

    /// A disk hit hands over the read's own buffer with the type tag left out: byte for byte the
    /// value, indexed from 0, wherever the record lies; another type is still refused there.
    @Test("a disk hit of each size reads back the value alone, and refuses another type", arguments: [100, 16_000, 500_000])
    func diskHitsOfEachSize(byteCount: Int) async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let value = Data((0..<byteCount).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try await hoard.store(value, forKey: "bytes")
        for round in 0..<2 {  // the second read from memory, where the first promoted it
            if round == 0 { hoard.clearMemory() }
            let read = try #require(try await hoard.retrieve(Data.self, forKey: "bytes"))
            #expect(read == value)
            #expect(read.startIndex == 0 && read.first == value.first)
        }
        hoard.clearMemory()
        await #expect(throws: HoardError.self) { try await hoard.retrieve(String.self, forKey: "bytes") }
        #expect(try await hoard.entry(Data.self, forKey: "bytes")?.value == value)
    }

    @Test("opaque images are stored as JPEG at the configured quality, images with alpha as PNG")
    func imageEncoding() async throws {
        let fixture = try HoardFixture { $0.jpegQuality = 50 }
        defer { fixture.folder.remove() }
        let photo = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg"))
        try await fixture.hoard.store(photo, forKey: "photo")
        let disk = try DiskCache(directory: fixture.folder.cacheURL)
        let stored = try #require(try disk.data(forKey: "photo"))
        let payload = try #require(TypedPayload.unwrap(stored))
        #expect(payload.typeName == "Hoard.Image")
        #expect(payload.payload == (try photo.jpegData(quality: 50)))
    }

    @Test("Identifiable values are keyed by type and id, so equal ids never collide")
    func identifiable() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        try await hoard.store(User(id: 7, name: "Grace"))
        try await hoard.store(Team(id: 7, members: ["a", "b"]))
        hoard.clearMemory()
        #expect(try await hoard.retrieve(User.self, id: 7) == User(id: 7, name: "Grace"))
        #expect(try await hoard.retrieve(Team.self, id: 7) == Team(id: 7, members: ["a", "b"]))
        #expect(Hoard.key(for: User.self, id: 7) != Hoard.key(for: Team.self, id: 7))
        try await hoard.remove(User.self, id: 7)
        #expect(try await hoard.retrieve(User.self, id: 7) == nil)
        #expect(try await hoard.retrieve(Team.self, id: 7) != nil)
    }

    @Test("removeAll empties both tiers")
    func removeAll() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        for i in 0..<20 { try await fixture.hoard.store("v\(i)", forKey: "k\(i)") }
        try await fixture.hoard.removeAll()
        for i in 0..<20 { #expect(try await fixture.hoard.retrieve(String.self, forKey: "k\(i)") == nil) }
        #expect(try await fixture.reopened().retrieve(String.self, forKey: "k3") == nil)
    }
}


@Suite("Hoard under load and hostile input")
struct HoardRobustnessTests {
    @Test("hostile keys never become paths and each reads back its own value")
    func hostileKeys() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let keys = ["../../etc/passwd", "/", "", "nul\0byte", "🦄/../🦄", String(repeating: "k", count: 64 * 1024), "a\\b", "."]
        for (index, key) in keys.enumerated() { try await fixture.hoard.store("value \(index)", forKey: key) }
        fixture.hoard.clearMemory()
        for (index, key) in keys.enumerated() {
            #expect(try await fixture.hoard.retrieve(String.self, forKey: key) == "value \(index)")
        }
        // Nothing was written outside the cache folder.
        let outside = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path)
        #expect(outside == ["cache"])
    }

    @Test("two instances and many tasks on the same keys: no error, no wrong value")
    func concurrentInstances() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoards = [fixture.hoard, try fixture.reopened()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    let hoard = hoards[task % 2]
                    for round in 0..<150 {
                        let key = "key-\(round % 7)"
                        if (round + task) % 3 == 0 {
                            // Self-describing values: the key they belong to, then a payload.
                            try await hoard.store("\(key)|\(task)|\(String(repeating: "x", count: round * 13))", forKey: key)
                        } else if let value = try await hoard.retrieve(String.self, forKey: key) {
                            #expect(value.hasPrefix("\(key)|"), "wrong value for \(key)")
                            let parts = value.split(separator: "|", omittingEmptySubsequences: false)
                            #expect(parts.count == 3 && parts[2].allSatisfy { $0 == "x" })
                        }
                        if round % 50 == 0 { hoard.clearMemory() }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("keys equal under Unicode normalisation (NFC and NFD) are two keys: in memory, on disk, after a restart, in fetches")
    func normalisationEquivalentKeys() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "Swift's == calls them equal")
        try await hoard.store("NFC", forKey: composed)
        try await hoard.store("NFD", forKey: decomposed)
        #expect(try await hoard.retrieve(String.self, forKey: composed) == "NFC")
        #expect(try await hoard.retrieve(String.self, forKey: decomposed) == "NFD")
        let reopened = try fixture.reopened()
        #expect(try await reopened.retrieve(String.self, forKey: composed) == "NFC")
        #expect(try await reopened.retrieve(String.self, forKey: decomposed) == "NFD")
        // Fetches for the two keys are two fetches, even at once.
        let gate = AsyncStream.makeStream(of: Void.self)
        async let first = hoard.value(forKey: "fetch/" + composed) { () async -> String in
            for await _ in gate.stream { break }
            return "fetched NFC"
        }
        async let second = hoard.value(forKey: "fetch/" + decomposed) { () async -> String in "fetched NFD" }
        #expect(try await second == "fetched NFD")
        gate.continuation.yield()
        #expect(try await first == "fetched NFC")
        try await hoard.remove(forKey: composed)
        #expect(try await hoard.retrieve(String.self, forKey: decomposed) == "NFD", "removing one leaves the other")
        let removed = try await hoard.removeAll { $0.utf8.starts(with: "fetch/cafe".utf8) }
        #expect(removed == 1, "only the NFD key's bytes start with cafe")
        #expect(try await hoard.retrieve(String.self, forKey: "fetch/" + composed) == "fetched NFC")
    }
}
