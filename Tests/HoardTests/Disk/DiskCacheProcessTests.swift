import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several processes on one folder, and a writer killed at random moments. Serialized: each test
/// already keeps both cores busy. How long they run is set by `Torture` (`HOARD_TORTURE=long`).
@Suite("DiskCache across processes", .serialized)
struct DiskCacheProcessTests {
    /// Keys of the kill test: each round's writer overwrites them in a random order.
    static let killedWriterKeyCount = 256

    @Test("A writer killed with SIGKILL leaves every key old or new, and no temporary file after trim")
    func killedWriter() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let started = ContinuousClock.now
        let path = folder.cacheURL.path(percentEncoded: false)
        let keys = (0..<Self.killedWriterKeyCount).map { "key-\($0)" }
        let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(sizeLimit: 1 << 50))
        // What each key reads back as: version 0 at first, then whatever each round leaves.
        var current: [String: Data] = [:]
        for key in keys {
            current[key] = Self.killTestValue(key: key, round: 0)
            try cache.store(Self.killTestValue(key: key, round: 0), forKey: key)
        }
        var figures = KillFigures()
        for round in 1...UInt64(Torture.kills) {
            let (process, output) = try StressChild.start(["write-loop", path, "\(round)", "\(keys.count)"])
            // Every kill waits until the child has stored its first value, so that it is writing,
            // not starting up or making its first value (slow under ThreadSanitizer). Odd rounds
            // then kill at a random moment. Even rounds kill as soon as a temporary file is seen:
            // under ThreadSanitizer random moments mostly found the child making values (4 kills
            // of 40 mid-write), and these rounds make sure the interrupted write is tested in every
            // build. Blocking waits on purpose: a `Task.sleep` wakes up only when Swift Testing's
            // worker threads are free, which under a sanitizer, with other tests busy, let the
            // child write for seconds.
            let aimed = round % 2 == 0
            var lines = ChildLines(output.fileHandleForReading)
            while let line = lines.next(), line == "ready" {}
            if aimed {
                let deadline = ContinuousClock.now + .seconds(60)
                while Self.temporaryFiles(of: cache).isEmpty, ContinuousClock.now < deadline { usleep(50) }
            } else {
                usleep(UInt32.random(in: 0...150_000))
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            // "ready", then "KEY LENGTH" for each value the child finished storing.
            let stored = lines.rest().dropFirst().map { $0.split(separator: " ") }
            let storedKeys = Set(stored.map { String($0[0]) })
            figures.stores += stored.count
            figures.storedBytes += stored.compactMap { $0.count == 2 ? Int($0[1]) : nil }.reduce(0, +)
            if !Self.temporaryFiles(of: cache).isEmpty {
                figures.killsMidWrite += 1
                if aimed { figures.aimedKillsMidWrite += 1 }
            }

            for key in keys {
                let data = try cache.data(forKey: key)
                // This round's value is generated only for the keys that need it (a few MiB each,
                // slow in a sanitizer build): those the child reported and those that changed.
                let isUnchanged = data == current[key]
                guard storedKeys.contains(key) || !isUnchanged else { continue }
                let new = Self.killTestValue(key: key, round: round)
                if storedKeys.contains(key) {  // the child saw this round's value stored
                    #expect(data == new, "round \(round), \(key): stored, not read")
                }
                guard !isUnchanged else { continue }
                if let data {
                    let isNew = data == new
                    #expect(
                        isNew, "round \(round), \(key): \(data.count) bytes, neither its last value nor this round's")
                    if isNew { figures.newValues += 1 }
                } else {
                    figures.misses += 1
                }
                current[key] = data
            }
            try cache.trim()
            #expect(Self.temporaryFiles(of: cache).isEmpty, "round \(round): trim left temporary files")
        }
        // Many kills landed mid-write (a temporary file was left) and many new values landed.
        #expect(figures.aimedKillsMidWrite > 0, "no kill aimed at a temporary file landed while it existed")
        #expect(figures.newValues > 0)
        #expect(figures.misses == 0, "atomic renames never leave a key without a value")
        print(
            "killedWriter: \(Torture.kills) kills, \(figures.killsMidWrite) left a temporary file",
            "(\(figures.aimedKillsMidWrite) of the \(Torture.kills / 2) aimed at a temporary file);",
            "\(figures.stores) values stored (\(figures.storedBytes) bytes of values),",
            "\(figures.newValues) keys read back with a new value, \(figures.misses) misses;",
            "\(ContinuousClock.now - started)")
    }

    @Test("Two processes of four workers store, read, remove and trim under a small limit, and leave it held")
    func concurrentProcesses() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let started = ContinuousClock.now
        let path = folder.cacheURL.path(percentEncoded: false)
        let keyCount = 64
        // A few average values (32 KiB) where the 64 keys would take 2 MiB: trims run all the time.
        let sizeLimit = 256 * 1024
        let arguments = ["stress", path, "\(Torture.processSeconds)", "4", "\(sizeLimit)", "\(keyCount)"]
        async let first = StressChild.run(arguments)
        async let second = StressChild.run(arguments)
        var total = StressCounts()
        for result in try await [first, second] {
            #expect(result.status == 0, "child: \(result.output)")
            let counts = try #require(StressCounts(summary: result.output), "child: \(result.output)")
            #expect(counts.errors == 0 && counts.wrongValues == 0, "child: \(result.output)")
            #expect(counts.stores > 0 && counts.hits > 0 && counts.removes > 0, "child: \(counts.summary)")
            #expect(counts.trims > 0 && counts.trimsThatRemoved > 0, "child: \(counts.summary)")
            total.add(counts)
        }
        // Both have exited. Every process scanned after each of its writes (a rescan interval of
        // 0), so the last scan saw the folder as they left it: within the limit, with no trim here.
        let cache = try DiskCache(directory: folder.cacheURL)
        let finalSize = try cache.totalSize
        let largestKey = "k\(keyCount - 1)"
        let largestEntry =
            CacheRecord.Header.fixedByteCount + largestKey.utf8.count
            + StressValue.make(key: largestKey, version: 0, byteCount: StressCounts.maximumValueByteCount).count
        #expect(finalSize <= sizeLimit, "\(finalSize) bytes left, limit \(sizeLimit)")
        #expect(Self.temporaryFiles(of: cache).isEmpty)
        for key in try cache.keys() {
            let data = try #require(try cache.data(forKey: key))
            #expect(StressValue.verifiedVersion(of: data, key: key) != nil, "\(key): \(data.count) bytes")
        }
        print(
            "concurrentProcesses: 2 processes × 4 workers, \(Torture.processSeconds) s: \(total.summary);",
            "final size \(finalSize) bytes, limit \(sizeLimit), limit + largest entry \(sizeLimit + largestEntry);",
            "\(ContinuousClock.now - started)")
    }

    @Test("A process killed while it compacts the index leaves it whole: every kept entry reads back exactly")
    func killedDuringCompaction() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.cacheURL.path(percentEncoded: false)
        let keepCount = 300
        // Enough churn that removing it (four batches of rows, then segment steps) takes a few
        // milliseconds, so that most of the delays below still land inside it.
        let churnCount = 1000
        var killsDuringCompaction = 0
        let rounds = 10
        for round in 1...rounds {
            let (process, output) = try StressChild.start(["compact-loop", path, "\(keepCount)", "\(churnCount)"])
            var lines = ChildLines(output.fileHandleForReading)
            // Blocking waits, as in the kill test above: the kill must land while the child works.
            var compactions = 0
            while let line = lines.next() {
                if line == "compacting" { compactions += 1 }
                if compactions == round % 3 + 1 { break }
            }
            // removeExpired() deletes the churn's rows, then gives pages back and compacts segments.
            usleep([0, 100, 300, 1_000, 3_000][round % 5])
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            // The child prints "compacted" when removeExpired() returns: when its last line is
            // "compacting", the kill landed inside one (the rounds before it printed both).
            if lines.rest().last == "compacting" { killsDuringCompaction += 1 }
            let log = LogRecorder()
            let cache = try DiskCache(directory: folder.cacheURL, configuration: .init(logger: log.logger()))
            let check = try cache.index.withConnection(writing: true) { connection -> String in
                let statement = try connection.uncachedStatement("PRAGMA integrity_check")
                defer { statement.reset() }
                return try statement.step() ? statement.text(0) : "no answer"
            }
            #expect(check == "ok", "round \(round)")
            for index in 0..<keepCount {
                let key = "keep-\(index)"
                #expect(
                    try cache.data(forKey: key) == StressValue.make(key: key, version: 1, byteCount: 8192),
                    "round \(round): \(key)")
            }
            // Churn values are whole or gone, never wrong.
            for index in 0..<churnCount {
                let key = "churn-\(index)"
                if let data = try cache.entryIncludingExpired(forKey: key)?.data {
                    #expect(StressValue.verifiedVersion(of: data, key: key) != nil, "round \(round): \(key)")
                }
            }
            #expect(log.lines(containing: "damaged").isEmpty, "round \(round)")
        }
        #expect(killsDuringCompaction > 0, "no kill landed inside removeExpired()")
        print("killedDuringCompaction: \(killsDuringCompaction) of \(rounds) kills landed inside removeExpired()")
    }

    // MARK: - Helpers

    /// What the kill test saw, for its summary line.
    struct KillFigures {
        var stores = 0
        var storedBytes = 0
        var killsMidWrite = 0
        var aimedKillsMidWrite = 0
        var newValues = 0
        var misses = 0
    }

    /// The value the kill test's writer stores under `key` in `round` (0: the one stored first).
    static func killTestValue(key: String, round: UInt64) -> Data {
        StressValue.make(key: key, version: round, byteCount: StressValueSize.byteCount(key: key, version: round))
    }

    /// The kill test child's output, line by line, read with blocking reads.
    struct ChildLines {
        let handle: FileHandle
        private var buffer = Data()
        private var lines: [String] = []

        init(_ handle: FileHandle) { self.handle = handle }

        /// The next whole line, or `nil` once the child has closed its output.
        mutating func next() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    lines.append(line)
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        /// Every line, those already returned included, once the child has closed its output.
        mutating func rest() -> [String] {
            while next() != nil {}
            return lines
        }
    }

    static func temporaryFiles(of cache: DiskCache) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: cache.temporaryDirectoryPath)) ?? []
    }
}
