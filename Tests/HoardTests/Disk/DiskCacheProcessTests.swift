import Foundation
import Synchronization
import Testing

@testable import Hoard
import HoardTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several processes on one folder, and a writer killed at random moments. Serialized: each test
/// already keeps both cores busy.
@Suite("DiskCache across processes", .serialized)
struct DiskCacheProcessTests {
    @Test("A writer killed with SIGKILL leaves every key old, new or missing, and no temporary file after trim")
    func killedWriter() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let keyCount = 6
        let byteCount = 200_000
        let cache = try DiskCache(directory: folder.cacheURL)
        var current: [String: UInt64?] = [:]
        for index in 0..<keyCount {
            let key = "key-\(index)"
            try cache.store(StressValue.make(key: key, version: 0, byteCount: byteCount), forKey: key)
            current[key] = 0
        }
        var killsWithTemporaryFiles = 0
        var misses = 0
        var newValues = 0
        // 20 kills at random moments; more (up to 40) until some are seen to land mid-write: on
        // ext4 a rename over a file also starts its writeback, so many kills land in the rename.
        var round: UInt64 = 0
        while round < 20 || (killsWithTemporaryFiles < 2 && round < 40) {
            round += 1
            let (process, output) = try StressChild.start([
                "write-loop", folder.cacheURL.path(percentEncoded: false), "\(round)", "\(keyCount)", "\(byteCount)",
            ])
            // Wait for the child to be ready, then let it write for a random while.
            _ = await Task.detached { output.fileHandleForReading.availableData }.value
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            let temporary = (try? FileManager.default.contentsOfDirectory(atPath: cache.temporaryDirectoryPath)) ?? []
            if !temporary.isEmpty { killsWithTemporaryFiles += 1 }

            for index in 0..<keyCount {
                let key = "key-\(index)"
                let previous = current[key] ?? nil
                guard let data = try cache.data(forKey: key) else {
                    misses += 1
                    current[key] = .some(nil)
                    continue
                }
                let version = StressValue.verifiedVersion(of: data, key: key)
                #expect(version != nil, "round \(round), \(key): \(data.count) bytes that are no value ever written")
                #expect(
                    version == previous || version == round,
                    "round \(round), \(key): version \(String(describing: version))")
                if version == round { newValues += 1 }
                current[key] = version
            }
        }
        // The kills landed mid-write (a temporary file was left) and some new values landed.
        #expect(killsWithTemporaryFiles > 0, "no kill out of \(round) landed while a temporary file existed")
        #expect(newValues > 0)
        #expect(misses == 0, "atomic renames never leave a key without a value")
        try cache.trim()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.temporaryDirectoryPath)) ?? []).isEmpty)
    }

    @Test("Two processes and many threads on the same keys: no error and no wrong value")
    func concurrentProcesses() async throws {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.cacheURL.path(percentEncoded: false)
        let sizeLimit = 1 << 20  // small: trims run all the time, in every process
        let seconds = 3.0
        async let first = StressChild.run(["stress", path, "\(seconds)", "4", "\(sizeLimit)"])
        async let second = StressChild.run(["stress", path, "\(seconds)", "4", "\(sizeLimit)"])
        // This process joins in with threads of its own.
        let cache = try DiskCache(
            directory: folder.cacheURL,
            configuration: .init(sizeLimit: sizeLimit, recencyUpdateInterval: 0, rescanInterval: 0.05))
        let local = await Self.stressInProcess(cache, threads: 4, seconds: seconds)
        let results = try await [first, second]
        for result in results {
            #expect(result.status == 0, "child: \(result.output)")
            #expect(result.output.contains("failures=0"), "child: \(result.output)")
        }
        #expect(local.failures.isEmpty, "\(local.failures.prefix(10))")
        #expect(local.hits > 0 && local.stores > 0)
        // While others write, each of the 3 processes may add up to (limit - low-water mark) before
        // its own running total triggers a trim, plus the 12 writes in flight.
        #expect(try cache.totalSize <= sizeLimit + 3 * (sizeLimit / 5) + 12 * 66_000)
        try cache.trim()
        #expect(try cache.totalSize <= sizeLimit)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.temporaryDirectoryPath)) ?? []).isEmpty)
        for key in try cache.keys() {
            let data = try #require(try cache.data(forKey: key))
            #expect(StressValue.verifiedVersion(of: data, key: key) != nil)
        }
    }

    struct StressResult: Sendable {
        var stores = 0
        var hits = 0
        var failures: [String] = []
    }

    /// Threads that store, read (verifying) and remove 32 keys until `seconds` have passed.
    static func stressInProcess(_ cache: DiskCache, threads: Int, seconds: Double) async -> StressResult {
        let total = Mutex(StressResult())
        let deadline = Date().addingTimeInterval(seconds)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Mutex(threads)
            for _ in 0..<threads {
                Thread.detachNewThread {
                    var result = StressResult()
                    while Date() < deadline {
                        let key = "k\(Int.random(in: 0..<32))"
                        do {
                            switch Int.random(in: 0..<100) {
                            case 0..<50:
                                try cache.store(
                                    StressValue.make(
                                        key: key, version: .random(in: 0...UInt64.max),
                                        byteCount: .random(in: 0...65_536)),
                                    forKey: key)
                                result.stores += 1
                            case 50..<95:
                                if let data = try cache.data(forKey: key) {
                                    result.hits += 1
                                    if StressValue.verifiedVersion(of: data, key: key) == nil {
                                        result.failures.append("wrong value for \(key)")
                                    }
                                }
                            default:
                                try cache.remove(forKey: key)
                            }
                        } catch {
                            result.failures.append("\(key): \(error)")
                        }
                    }
                    total.withLock {
                        $0.stores += result.stores
                        $0.hits += result.hits
                        $0.failures += result.failures
                    }
                    if remaining.withLock({
                        $0 -= 1; return $0 == 0
                    }) {
                        continuation.resume()
                    }
                }
            }
        }
        return total.withLock { $0 }
    }
}
