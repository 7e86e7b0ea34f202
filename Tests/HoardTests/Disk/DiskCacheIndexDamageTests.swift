import CHoardSQLite
import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Damage to the index never kills a process and is rebuilt by the
/// process that finds it and by new ones; a new cache opened by many processes at once opens in
/// every one.
@Suite("DiskCache: a damaged index", .serialized)
struct DiskCacheIndexDamageTests {
    /// What a busy child printed: one line per tick, "tick OK ERRORS WRONG".
    struct Ticks {
        var lines: [(ok: Int, errors: Int, wrong: Int)] = []
        var firstError: String?

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.first == "tick", words.count == 4, let ok = Int(words[1]), let errors = Int(words[2]),
                    let wrong = Int(words[3])
                {
                    lines.append((ok, errors, wrong))
                } else if words.first == "error", firstError == nil {
                    firstError = String(line)
                }
            }
        }
    }

    /// Runs a busy child for `seconds`, does `damage` to the folder once it is busy, and returns
    /// the child's termination and ticks.
    static func damageBusyChild(
        seconds: Int = 6, _ damage: (_ folder: String) throws -> Void
    ) throws -> (process: Process, ticks: Ticks, folder: TemporaryDirectory) {
        _ = try StressChild.requireExecutable()
        let folder = try TemporaryDirectory()
        let path = folder.cacheURL.path(percentEncoded: false)
        let (process, output) = try StressChild.start(["busy", path, "\(seconds)"])
        var lines = DiskCacheProcessTests.ChildLines(output.fileHandleForReading)
        while let line = lines.next(), !line.hasPrefix("tick") {}
        try damage(path)
        let rest = lines.rest()
        process.waitUntilExit()
        return (process, Ticks(rest.joined(separator: "\n")), folder)
    }

    static func truncate(_ path: String, to length: off_t) throws {
        guard Glibc.truncate(path, length) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    static func exitedNormally(_ process: Process) -> Bool {
        process.terminationReason == .exit && process.terminationStatus == 0
    }

    @Test("index.sqlite truncated under a busy process", arguments: [0, 4096] as [off_t])
    func truncatedIndex(length: off_t) throws {
        for _ in 0..<3 {
            let (process, ticks, folder) = try Self.damageBusyChild { path in
                usleep(300_000)
                try Self.truncate(path + "/index.sqlite", to: length)
            }
            defer { folder.remove() }
            #expect(Self.exitedNormally(process), "child ended by \(process.terminationReason) \(process.terminationStatus)")
            Self.expectRecovered(ticks)
        }
    }

    @Test("index.sqlite deleted under a busy process: it makes a new index and carries on")
    func deletedIndex() throws {
        let (process, ticks, folder) = try Self.damageBusyChild { path in
            usleep(300_000)
            try FileManager.default.removeItem(atPath: path + "/index.sqlite")
        }
        defer { folder.remove() }
        #expect(Self.exitedNormally(process))
        Self.expectRecovered(ticks)
        let cache = try DiskCache(directory: folder.cacheURL)
        try cache.store(Data("after".utf8), forKey: "after")
        #expect(try cache.data(forKey: "after") == Data("after".utf8))
    }

    @Test("The entries table dropped under a busy process, and before a new one opens")
    func droppedTable() throws {
        let (process, ticks, folder) = try Self.damageBusyChild { path in
            usleep(300_000)
            try Self.execute("DROP TABLE entries", on: path + "/index.sqlite")
        }
        defer { folder.remove() }
        #expect(Self.exitedNormally(process))
        Self.expectRecovered(ticks)
        // And in a folder nobody has open.
        try Self.execute("DROP TABLE entries", on: folder.cacheURL.path + "/index.sqlite")
        let cache = try DiskCache(directory: folder.cacheURL)
        for index in 0..<10 {
            try cache.store(Data("value \(index)".utf8), forKey: "key \(index)")
            #expect(try cache.data(forKey: "key \(index)") == Data("value \(index)".utf8))
        }
    }

    @Test("A foreign database where the index should be is replaced; entry files survive")
    func foreignIndex() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let large = StressValue.make(key: "large", version: 1, byteCount: 100_000)
        do {
            let cache = try DiskCache(directory: folder.cacheURL)
            try cache.store(large, forKey: "large")
        }
        let index = folder.cacheURL.path + "/index.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
        try Self.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)", on: index)
        let cache = try DiskCache(directory: folder.cacheURL)
        #expect(try cache.data(forKey: "large") == large)
        try cache.store(Data("small".utf8), forKey: "small")
        #expect(try cache.data(forKey: "small") == Data("small".utf8))
    }

    /// SQLite maps `index.sqlite-shm` (the log's index) into every process that uses the cache;
    /// a process that touches a page of it after the file was cut short gets SIGBUS from the
    /// kernel. This test shows exactly that, and that nothing is lost or wrong afterwards: the
    /// next process rebuilds the log's index from the log.
    @Test("index.sqlite-shm truncated under a busy process: it may die by SIGBUS; nothing wrong is ever read")
    func truncatedSharedMemory() throws {
        var signalled = 0
        for _ in 0..<3 {
            let (process, ticks, folder) = try Self.damageBusyChild { path in
                usleep(300_000)
                try Self.truncate(path + "/index.sqlite-shm", to: 0)
            }
            defer { folder.remove() }
            // SIGBUS; under a sanitizer, which catches the SIGBUS and reports it, SIGABRT or its exit code.
            let died =
                process.terminationReason == .uncaughtSignal && [SIGBUS, SIGABRT].contains(process.terminationStatus)
                || Self.isSanitizerBuild && process.terminationReason == .exit && process.terminationStatus != 0
            if died { signalled += 1 }
            #expect(died || Self.exitedNormally(process), "\(process.terminationReason) \(process.terminationStatus)")
            #expect(ticks.lines.allSatisfy { $0.wrong == 0 })
            // A new process opens the cache; every value it holds verifies.
            let cache = try DiskCache(directory: folder.cacheURL)
            for key in try cache.keys() {
                if let data = try cache.data(forKey: key) {
                    #expect(StressValue.verifiedVersion(of: data, key: key) != nil, "\(key)")
                }
            }
            try cache.store(Data("after".utf8), forKey: "after")
            #expect(try cache.data(forKey: "after") == Data("after".utf8))
        }
        print("truncatedSharedMemory: \(signalled) of 3 busy processes died by SIGBUS")
    }

    @Test("Twelve caches opened at once on a new folder, again and again, all open")
    func concurrentOpens() throws {
        let failures = Lock<[String]>([])
        // The first store of each trims: twelve wait in turn.
        let configuration = DiskCache.Configuration().waitingLongForTheWriteLock()
        for _ in 0..<30 {
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            DispatchQueue.concurrentPerform(iterations: 12) { index in
                do {
                    let cache = try DiskCache(directory: folder.cacheURL, configuration: configuration)
                    try cache.store(Data("\(index)".utf8), forKey: "\(index)")
                    _ = try cache.totalSize
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(3))")
    }

    @Test("Eight processes open a new folder at once, five times over")
    func concurrentProcessOpens() async throws {
        _ = try StressChild.requireExecutable()
        for _ in 0..<5 {
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let path = folder.cacheURL.path(percentEncoded: false)
            let results = try await withThrowingTaskGroup(of: (Int32, String).self) { group in
                for _ in 0..<8 { group.addTask { try await StressChild.run(["open", path]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (status, output) in results { #expect(status == 0, "\(output)") }
        }
    }

    // MARK: - Helpers

    /// Whether the tests run under AddressSanitizer or ThreadSanitizer (`scripts/sanitize`), whose
    /// runtimes catch a SIGBUS, report it and end the process their own way.
    static let isSanitizerBuild: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
    }()

    /// After the damage, the child's last ticks ran without errors (and it never read a wrong value).
    static func expectRecovered(_ ticks: Ticks, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(ticks.lines.count >= 3, "too few ticks: \(ticks.lines.count)", sourceLocation: sourceLocation)
        #expect(ticks.lines.allSatisfy { $0.wrong == 0 }, sourceLocation: sourceLocation)
        let last = ticks.lines.suffix(2)
        #expect(
            last.allSatisfy { $0.errors == 0 && $0.ok > 0 }, "last ticks \(Array(last)), first error \(ticks.firstError ?? "none")",
            sourceLocation: sourceLocation)
    }

    /// Runs `sql` on the database at `path` from a connection of the test's own.
    static func execute(_ sql: String, on path: String) throws {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let connection
        else { throw DiskCacheError.readFailed(path: path, call: "sqlite3_open_v2", errno: 0) }
        defer { sqlite3_close_v2(connection) }
        sqlite3_busy_timeout(connection, 10_000)
        let code = sqlite3_exec(connection, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DiskCacheError.writeFailed(path: path, call: String(cString: sqlite3_errmsg(connection)), errno: 0)
        }
    }
}
