import Foundation
import Hoard
import Testing

/// What every ``CacheTier`` must do, written once: the disk tier's tests and the Redis tier's run
/// the same checks, each on tiers its own factory makes.
///
/// ```swift
/// @Test(arguments: CacheTierContract.Check.allCases)
/// func contract(_ check: CacheTierContract.Check) async throws {
///     try await CacheTierContract.run(check) { try makeEmptyTier() }
/// }
/// ```
public enum CacheTierContract {
    /// One property of the contract.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        case missOnEmpty
        case storeThenRead
        case replace
        case remove
        case removeAll
        case expiredIsNotFresh
        case removeEntriesByKey
        case removeEntriesCreatedBefore
        case removeEntriesByBytes
        case bytesOfEveryValue
        case hostileKeys
        case concurrentWriters

        public var description: String { rawValue }
    }

    /// Runs `check` on a fresh, empty tier from `makeTier`.
    public static func run(
        _ check: Check, sourceLocation: SourceLocation = #_sourceLocation,
        makeTier: () async throws -> any CacheTier
    ) async throws {
        let tier = try await makeTier()
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        func entry(_ text: String, expiresIn seconds: Double? = 3_600) -> CacheTierEntry {
            CacheTierEntry(bytes: Data(text.utf8), createdAt: now, expiresAt: seconds.map { now.addingTimeInterval($0) })
        }
        switch check {
        case .missOnEmpty:
            #expect(try await tier.entry(forKey: "absent") == nil, sourceLocation: sourceLocation)
        case .storeThenRead:
            let stored = entry("value")
            try await tier.store(stored, forKey: "k")
            #expect(try await tier.entry(forKey: "k") == stored, "bytes and both dates", sourceLocation: sourceLocation)
            let forever = entry("forever", expiresIn: nil)
            try await tier.store(forever, forKey: "never expires")
            #expect(try await tier.entry(forKey: "never expires") == forever, sourceLocation: sourceLocation)
        case .replace:
            try await tier.store(entry("first"), forKey: "k")
            try await tier.store(entry("second, longer"), forKey: "k")
            #expect(try await tier.entry(forKey: "k")?.bytes == Data("second, longer".utf8), sourceLocation: sourceLocation)
        case .remove:
            try await tier.store(entry("v"), forKey: "k")
            try await tier.store(entry("w"), forKey: "other")
            try await tier.remove(forKey: "k")
            try await tier.remove(forKey: "k")  // a missing key is not an error
            #expect(try await tier.entry(forKey: "k") == nil, sourceLocation: sourceLocation)
            #expect(try await tier.entry(forKey: "other")?.bytes == Data("w".utf8), sourceLocation: sourceLocation)
        case .removeAll:
            for index in 0..<20 { try await tier.store(entry("\(index)"), forKey: "k\(index)") }
            try await tier.removeAll()
            for index in 0..<20 {
                #expect(try await tier.entry(forKey: "k\(index)") == nil, sourceLocation: sourceLocation)
            }
            // A value stored after the removal (a shared tier may treat copies of values created
            // before it as removed: they are what another machine had not yet dropped).
            let again = CacheTierEntry(bytes: Data("again".utf8), createdAt: Date(), expiresAt: nil)
            try await tier.store(again, forKey: "k0")
            #expect(try await tier.entry(forKey: "k0")?.bytes == Data("again".utf8), sourceLocation: sourceLocation)
        case .expiredIsNotFresh:
            try await tier.store(entry("old"), forKey: "k")
            try await tier.store(entry("expired", expiresIn: -1), forKey: "k")
            // The tier may drop it, or keep it with its date: it never passes it off as fresh.
            let found = try await tier.entry(forKey: "k")
            #expect(found == nil || found?.expiresAt.map { $0 <= Date() } == true, sourceLocation: sourceLocation)
            #expect(found?.bytes != Data("old".utf8), "the older value is gone", sourceLocation: sourceLocation)
        case .removeEntriesByKey:
            for key in ["img/a 64", "img/a 128", "img/ab 64", "other"] { try await tier.store(entry(key), forKey: key) }
            let removed = try await tier.removeEntries { key, _ in key.hasPrefix("img/a ") }
            #expect(removed.sorted() == ["img/a 128", "img/a 64"], sourceLocation: sourceLocation)
            #expect(try await tier.entry(forKey: "img/a 64") == nil, sourceLocation: sourceLocation)
            #expect(try await tier.entry(forKey: "img/ab 64")?.bytes == Data("img/ab 64".utf8), sourceLocation: sourceLocation)
        case .removeEntriesCreatedBefore:
            let later = now.addingTimeInterval(10)
            try await tier.store(entry("old"), forKey: "old")
            try await tier.store(CacheTierEntry(bytes: Data("new".utf8), createdAt: later, expiresAt: nil), forKey: "new")
            try await tier.removeEntries(createdBefore: now.addingTimeInterval(5))
            #expect(try await tier.entry(forKey: "old") == nil, sourceLocation: sourceLocation)
            #expect(try await tier.entry(forKey: "new")?.bytes == Data("new".utf8), sourceLocation: sourceLocation)
        case .removeEntriesByBytes:
            try await tier.store(entry("TYPE-A payload"), forKey: "a")
            try await tier.store(entry("TYPE-B payload"), forKey: "b")
            let removed = try await tier.removeEntries { _, prefix in prefix.starts(with: Array("TYPE-A".utf8)) }
            #expect(removed == ["a"], sourceLocation: sourceLocation)
            #expect(try await tier.entry(forKey: "b") != nil, sourceLocation: sourceLocation)
        case .bytesOfEveryValue:
            for (index, bytes) in [Data(), Data((0...255).map { UInt8($0) }), Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })]
                .enumerated()
            {
                let stored = CacheTierEntry(bytes: bytes, createdAt: now, expiresAt: nil)
                try await tier.store(stored, forKey: "bytes \(index)")
                #expect(try await tier.entry(forKey: "bytes \(index)") == stored, "\(bytes.count) bytes", sourceLocation: sourceLocation)
            }
        case .hostileKeys:
            let keys = ["", "../../etc/passwd", "/", "a\0b", "ключ ✨", "{hash}tag", "*", String(repeating: "k", count: 10_000)]
            for (index, key) in keys.enumerated() { try await tier.store(entry("value \(index)"), forKey: key) }
            for (index, key) in keys.enumerated() {
                #expect(try await tier.entry(forKey: key)?.bytes == Data("value \(index)".utf8), "\(key.prefix(20))", sourceLocation: sourceLocation)
            }
        case .concurrentWriters:
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for round in 0..<25 {
                            let key = "shared \(round % 5)"
                            try await tier.store(entry("\(worker)-\(round)-\(key)"), forKey: key)
                            if let read = try await tier.entry(forKey: key) {
                                let text = String(decoding: read.bytes, as: UTF8.self)
                                #expect(text.hasSuffix("-\(key)"), "a whole value of this key: \(text)", sourceLocation: sourceLocation)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
