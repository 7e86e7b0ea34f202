import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import Hoard

/// How hard the torture tests push: a short pass in `scripts/test` and CI, a long one with
/// `HOARD_TORTURE=long` (see `scripts/torture`).
enum Torture {
    static let isLong = ProcessInfo.processInfo.environment["HOARD_TORTURE"] == "long"
    /// Operations per task of the memory-pressure workload.
    static let pressureOperations = isLong ? 100_000 : 800
    /// Entry files whose every truncation is read back.
    static let tornValueSizes: [Int] = isLong ? [0, 1, 100, 5_000, 70_000] : [0, 100, 3_000]
    /// Times the SIGKILL test kills its writer.
    static let kills = isLong ? 200 : 40
    /// Seconds the multi-process workload runs.
    static let processSeconds: Double = isLong ? 60 : 10
}

@Suite("Torture: torn files")
struct TornFileTests {
    @Test(
        "an entry file cut at every byte offset is always a miss, never wrong bytes", arguments: Torture.tornValueSizes)
    func everyTruncation(valueSize: Int) throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let key = "torn/\(valueSize)"
        let value = StressValue.make(key: key, version: 7, byteCount: valueSize)
        try fixture.cache.store(value, forKey: key)
        let path = try fixture.entryPath(key)
        let intact = try Data(contentsOf: URL(fileURLWithPath: path))
        for length in 0..<intact.count {
            if !FileManager.default.fileExists(atPath: path) { try fixture.cache.store(value, forKey: key) }
            try intact.prefix(length).write(to: URL(fileURLWithPath: path))
            let read = try fixture.cache.data(forKey: key)
            #expect(read == nil, "cut at \(length) of \(intact.count): \(read?.count ?? 0) bytes returned")
            #expect(!FileManager.default.fileExists(atPath: path), "cut at \(length): damaged file left")
        }
        // Whole again (a file the index no longer knows), it is indexed by a trim and reads back exactly.
        try intact.write(to: URL(fileURLWithPath: path))
        #expect(try fixture.cache.data(forKey: key) == nil)
        try fixture.cache.trim()
        #expect(try fixture.cache.data(forKey: key) == value)
    }

    /// Payloads are read and checked in pieces of `DiskCache.payloadReadPiece` bytes: cuts inside
    /// the first, at and around a piece boundary, and inside the last are misses too, and a flipped
    /// byte in a later piece is caught.
    @Test("a value of several read pieces cut or damaged in any piece is a miss")
    func cutsAcrossReadPieces() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let piece = DiskCache.payloadReadPiece
        let key = "torn/pieces"
        let value = StressValue.make(key: key, version: 3, byteCount: 2 * piece + 1_000)
        try fixture.cache.store(value, forKey: key)
        let path = try fixture.entryPath(key)
        let intact = try Data(contentsOf: URL(fileURLWithPath: path))
        let payloadStart = intact.count - value.count
        let cuts = [payloadStart + 10, payloadStart + piece - 1, payloadStart + piece, payloadStart + piece + 1,
                    payloadStart + 2 * piece, intact.count - 1]
        var flipped = intact
        flipped[payloadStart + 2 * piece + 500] ^= 0x01
        for (damaged, what) in cuts.map({ (intact.prefix($0), "cut at \($0) of \(intact.count)") })
            + [(flipped, "a flipped byte in the last piece")]
        {
            try fixture.cache.store(value, forKey: key)
            try damaged.write(to: URL(fileURLWithPath: path))
            #expect(try fixture.cache.data(forKey: key) == nil, "\(what)")
        }
        try fixture.cache.store(value, forKey: key)
        #expect(try fixture.cache.data(forKey: key) == value)
    }
}

@Suite("Torture: memory pressure")
struct MemoryPressureTests {
    /// What the tasks of the workload record.
    final class Ledger: Sendable {
        struct State {
            /// Every version stored per key: disk must hold one of them at the end.
            var written: [String: Set<UInt64>] = [:]
            var wrong: [String] = []
            var clears = 0
            var stop = false
            var stopped = false
        }
        let state = Lock(State())
    }

    @Test("clearMemory() from another task during a busy workload loses nothing on disk and returns no wrong value")
    func clearMemoryDuringWorkload() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var configuration = Hoard.Configuration(name: "pressure", directory: folder.cacheURL)
        configuration.memoryCountLimit = 64
        let hoard = try Hoard(configuration: configuration)
        let keys = (0..<40).map { "key-\($0)" }
        let ledger = Ledger()
        // A thread of its own clears memory until the workload is done, so that a busy cooperative
        // pool (the rest of the suite runs in parallel) cannot starve it.
        Thread.detachNewThread {
            while !ledger.state.withLock({ $0.stop }) {
                hoard.clearMemory()
                ledger.state.withLock { $0.clears += 1 }
                usleep(200)
            }
            ledger.state.withLock { $0.stopped = true }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var version = UInt64(worker) << 32
                    for _ in 0..<Torture.pressureOperations {
                        let key = keys.randomElement() ?? "key-0"
                        if Bool.random() {
                            version += 1
                            let size = Int.random(in: 0...20_000)
                            ledger.state.withLock { _ = $0.written[key, default: []].insert(version) }
                            try await hoard.store(
                                StressValue.make(key: key, version: version, byteCount: size), forKey: key)
                        } else if let data = try await hoard.retrieve(Data.self, forKey: key) {
                            if StressValue.verifiedVersion(of: data, key: key) == nil {
                                ledger.state.withLock { $0.wrong.append(key) }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        ledger.state.withLock { $0.stop = true }
        while !ledger.state.withLock({ $0.stopped }) { try await Task.sleep(for: .milliseconds(1)) }
        let state = ledger.state.withLock { $0 }
        #expect(state.wrong.isEmpty, "wrong values: \(state.wrong.prefix(5))")
        #expect(state.clears > 10)
        // Nothing written was lost: every key written has a verified value on disk, one of those written.
        hoard.clearMemory()
        for (key, versions) in state.written {
            let data = try #require(try await hoard.retrieve(Data.self, forKey: key), "\(key) lost")
            let version = try #require(StressValue.verifiedVersion(of: data, key: key), "\(key) wrong")
            #expect(versions.contains(version))
        }
    }
}
