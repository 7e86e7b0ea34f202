import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// How hard the torture tests push: a short pass in `scripts/test` and CI, a long one with
/// `HOARD_TORTURE=long` (see `scripts/torture`), and the killed-workers runs at scale with
/// `HOARD_TORTURE=scale` (`scripts/torture --scale`: 8 workers and a pruning process on a cache of
/// a million entries, 320 kills).
enum Torture {
    static let isScale = ProcessInfo.processInfo.environment["HOARD_TORTURE"] == "scale"
    static let isLong = ProcessInfo.processInfo.environment["HOARD_TORTURE"] == "long"
    /// Operations per task of the memory-pressure workload.
    static let pressureOperations = isLong ? 100_000 : 800
    /// Entry files whose every truncation is read back.
    static let tornValueSizes: [Int] = isLong ? [0, 1, 100, 5_000, 70_000] : [0, 100, 3_000]
    /// Times the SIGKILL test kills its writer.
    static let kills = isLong ? 200 : 40
    /// Seconds the multi-process workload runs.
    static let processSeconds: Double = isLong ? 60 : 10
    /// Kills of the killed-workers test beside a limit that never evicts (half as many under a
    /// small limit).
    static let workerKills = isScale ? 640 : isLong ? 510 : 24
    /// Worker processes of the killed-workers tests.
    static let workerCount = isScale ? 8 : 3
    /// Entries of 500 B in the cache before the killed workers start.
    static let prefilledEntries = isScale ? 1_000_000 : 0
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

    /// Payloads are read and checked in pieces of `FileStore.payloadReadPiece` bytes: cuts inside
    /// the first, at and around a piece boundary, and inside the last are misses too, and a flipped
    /// byte in a later piece is caught.
    @Test("a value of several read pieces cut or damaged in any piece is a miss")
    func cutsAcrossReadPieces() throws {
        let fixture = try DiskCacheFixture()
        defer { fixture.remove() }
        let piece = FileStore.payloadReadPiece
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

/// Workers in several processes storing (values up to 2 MiB), overwriting, removing,
/// trimming and sweeping expired entries, killed with SIGKILL at random moments and started again.
/// With a limit that never evicts, every key reads back as its last acknowledged state or the one
/// being written when its worker died; with a small limit, nothing read is ever wrong and the
/// folder stays within the limit, its slack and the records in flight.
@Suite("Torture: killed workers", .serialized)
struct KilledWorkerTortureTests {
    /// What one worker's log says of each key: its last acknowledged state, and every write begun
    /// since and never acknowledged. A write cut short by a kill may have committed or not, and
    /// stays possible until a later write is acknowledged: the next incarnation's write of the key
    /// may be cut short too (seen once in 510 kills: a read of the write the worker before last was
    /// making when it died).
    struct KeyState {
        enum Acknowledged: Equatable { case none, version(UInt64), removed }
        enum InFlight: Equatable { case store(UInt64), remove }
        var acknowledged = Acknowledged.none
        var unacknowledged: [InFlight] = []
    }

    /// The figures of a run.
    struct Figures {
        var kills = 0
        var checkedKeys = 0
        var wrong: [String] = []
        var lost: [String] = []
        var peakBytes = 0
        var acknowledgedStores = 0
        /// Acknowledged stores already counted, per log; and worker reports already seen.
        var storesSeen: [String: Int] = [:]
        var wrongLinesSeen: [String: Int] = [:]
    }

    static let workerCount = Torture.workerCount

    @Test("Workers killed at random: nothing lost beside a limit that never evicts", .timeLimit(.minutes(20)))
    func nothingLost() throws {
        let figures = try Self.run(sizeLimit: 1 << 40, kills: Torture.workerKills)
        #expect(figures.wrong.isEmpty, "\(figures.wrong.count) wrong: \(figures.wrong.prefix(5))")
        #expect(figures.lost.isEmpty, "\(figures.lost.count) lost: \(figures.lost.prefix(5))")
        #expect(figures.acknowledgedStores > figures.kills)
        print(
            "KilledWorkerTortureTests.nothingLost: \(figures.kills) kills of \(Self.workerCount) workers,",
            "\(figures.acknowledgedStores) acknowledged stores, \(figures.checkedKeys) keys checked after kills,",
            "\(figures.wrong.count) wrong, \(figures.lost.count) lost; peak \(figures.peakBytes) bytes on disk")
    }

    @Test("Workers killed at random under a 16 MiB limit: nothing wrong, the folder bounded", .timeLimit(.minutes(20)))
    func boundedAndRight() throws {
        // At scale, a limit just above the prefilled entries (about 760 MB on disk): the workers'
        // values (up to 2 MiB, 24 keys each) push the folder over it, and trims run at scale.
        let limit = Torture.isScale ? 800 << 20 : 16 << 20
        let figures = try Self.run(sizeLimit: limit, kills: Torture.workerKills / 2)
        let slack = DiskCache.Configuration(sizeLimit: limit).slackByteCount
        // In flight: each worker's record being written, and the temporary file a killed one left
        // until the next trim takes it.
        let bound = limit + slack + 2 * Self.workerCount * (2 << 20 + 4096)
        #expect(figures.wrong.isEmpty, "\(figures.wrong.count) wrong: \(figures.wrong.prefix(5))")
        #expect(figures.peakBytes <= bound, "peak \(figures.peakBytes) bytes, bound \(bound)")
        print(
            "KilledWorkerTortureTests.boundedAndRight: \(figures.kills) kills, \(figures.acknowledgedStores)",
            "acknowledged stores, \(figures.wrong.count) wrong; peak \(figures.peakBytes) bytes on disk,",
            "limit \(limit), limit + slack \(limit + slack), bound with records in flight \(bound)")
    }

    /// Runs the workers, kills one at random `kills` times (checking its keys each time), and
    /// samples the folder's size throughout.
    static func run(sizeLimit: Int, kills: Int) throws -> Figures {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.cacheURL.path(percentEncoded: false)
        if Torture.prefilledEntries > 0 {
            let filler = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 40, rescanInterval: 1e6))
            for index in 0..<Torture.prefilledEntries {
                try filler.store(StressValue.make(key: "fill-\(index)", version: 1, byteCount: 500), forKey: "fill-\(index)")
            }
        }
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: sizeLimit))
        let logs = (0..<workerCount).map { folder.url.appending(path: "worker-\($0).log").path(percentEncoded: false) }
        var nextVersion = (0..<workerCount).map { UInt64($0) << 40 }
        func start(_ worker: Int) throws -> Process {
            nextVersion[worker] += 1 << 20
            let (process, _) = try StressChild.start(
                ["torture", path, "\(sizeLimit)", "\(worker)", "\(nextVersion[worker])", logs[worker]])
            return process
        }
        var workers = try (0..<workerCount).map { try start($0) }
        // At scale, a process pruning as `hoard cache prune` does, killed and started again too.
        func startPruner() throws -> Process? {
            Torture.isScale ? try StressChild.start(["prune-loop", path, "\(sizeLimit)"]).process : nil
        }
        var pruner = try startPruner()
        defer {
            for worker in workers + [pruner].compactMap({ $0 }) { kill(worker.processIdentifier, SIGKILL); worker.waitUntilExit() }
        }
        let peak = Lock(0)
        let stop = Lock(false)
        let sampled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.withLock({ $0 }) {
                let bytes = FolderFootprint.byteCount(under: path)
                peak.withLock { $0 = max($0, bytes) }
                usleep(10_000)
            }
            sampled.signal()
        }
        var figures = Figures()
        for _ in 0..<kills {
            // At scale a worker's first store costs more (its process opens a bigger index).
            usleep(Torture.isScale ? UInt32.random(in: 100_000...400_000) : UInt32.random(in: 20_000...150_000))
            let victim = Int.random(in: 0..<workerCount)
            kill(workers[victim].processIdentifier, SIGKILL)
            workers[victim].waitUntilExit()
            figures.kills += 1
            let states = try keyStates(logs[victim], figures: &figures)
            for (key, state) in states {
                figures.checkedKeys += 1
                let data = try cache.data(forKey: key)
                let read = data.flatMap { StressValue.verifiedVersion(of: $0, key: key) }
                if data != nil, read == nil {
                    figures.wrong.append("\(key): \(data?.count ?? 0) bytes that are no value of it")
                    continue
                }
                var allowed: [UInt64?] = []
                switch state.acknowledged {
                case .version(let version): allowed.append(version)
                case .removed, .none: allowed.append(nil)
                }
                for write in state.unacknowledged {
                    switch write {
                    case .store(let version): allowed.append(version)
                    case .remove: allowed.append(nil)
                    }
                }
                if allowed.contains(read) { continue }
                if read == nil {
                    if sizeLimit >= 1 << 40 { figures.lost.append("\(key): \(state)") }
                } else {
                    figures.wrong.append("\(key): read \(read ?? 0), allowed \(allowed)")
                }
            }
            workers[victim] = try start(victim)
            if let running = pruner, figures.kills % 16 == 0 {
                kill(running.processIdentifier, SIGKILL)
                running.waitUntilExit()
                pruner = try startPruner()
                figures.kills += 1
            }
        }
        stop.withLock { $0 = true }
        sampled.wait()
        figures.peakBytes = peak.withLock { $0 }
        return figures
    }

    /// The bytes of a file another process may still be appending to, up to its length when opened.
    /// (`Data(contentsOf:)` leaked its buffer under AddressSanitizer when the file grew meanwhile.)
    static func readGrowingFile(_ path: String) throws -> [UInt8] {
        let descriptor = try FileSystem.open(path, flags: FileSystem.readOnlyFlags).get()
        defer { FileSystem.close(descriptor) }
        let length = try FileSystem.status(of: descriptor).get().byteCount
        var bytes = [UInt8](repeating: 0, count: length)
        let count = try bytes.withUnsafeMutableBytes { try FileSystem.readFully(descriptor, into: $0, at: 0).get() }
        return Array(bytes.prefix(count))
    }

    /// Each key's state by a worker's log (a line the kill cut short is left out), and the
    /// worker's own reports of wrong reads.
    static func keyStates(_ log: String, figures: inout Figures) throws -> [String: KeyState] {
        // A worker killed while it started may not have made its log yet.
        guard FileManager.default.fileExists(atPath: log) else { return [:] }
        let text = String(decoding: try Self.readGrowingFile(log), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }
        var states: [String: KeyState] = [:]
        var stores = 0
        var wrongLines: [String] = []
        for line in lines {
            let words = line.split(separator: " ")
            guard words.count >= 2 else { continue }
            let key = String(words[1])
            switch (words[0], words.count) {
            case ("store", 3):
                if let version = UInt64(words[2]) { states[key, default: KeyState()].unacknowledged.append(.store(version)) }
            case ("stored", 3):
                states[key, default: KeyState()].acknowledged = UInt64(words[2]).map { .version($0) } ?? .none
                states[key, default: KeyState()].unacknowledged = []
                stores += 1
            case ("remove", 2): states[key, default: KeyState()].unacknowledged.append(.remove)
            case ("removed", 2):
                states[key, default: KeyState()].acknowledged = .removed
                states[key, default: KeyState()].unacknowledged = []
            case ("wrong", _): wrongLines.append(String(line))
            default: break
            }
        }
        figures.acknowledgedStores += stores - (figures.storesSeen[log] ?? 0)
        figures.storesSeen[log] = stores
        // A log is read again after each of its worker's kills: new reports only.
        figures.wrong += wrongLines.dropFirst(figures.wrongLinesSeen[log] ?? 0).map { "worker read: \($0)" }
        figures.wrongLinesSeen[log] = wrongLines.count
        return states
    }
}
