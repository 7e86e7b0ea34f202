// A child process for the DiskCache tests (Tests/HoardTests/Disk/DiskCacheProcessTests.swift).
//
//   HoardDiskStress write-loop DIR VERSION KEYS
//       Prints "ready", then stores StressValue(key-i, VERSION, StressValueSize(key-i, VERSION))
//       for i in 0..<KEYS in a random order from two threads, over and over, until it is killed;
//       prints "KEY LENGTH" for each value once it is stored.
//   HoardDiskStress stress DIR SECONDS WORKERS SIZE_LIMIT KEYS
//       WORKERS threads store, read (verifying), remove and trim KEYS shared keys for SECONDS, with
//       a rescan interval of 0. Prints one line of counts (see `StressCounts`) and the first
//       failures; exits 0 when no operation threw, nothing was logged as a warning and every value
//       read back verified, 1 otherwise.
//   HoardDiskStress compact-loop DIR KEEP CHURN
//       Stores KEEP values "keep-i" (StressValue, version 1, 8 KiB, in segment files), prints
//       "ready", then over and over stores CHURN values "churn-j" that expire within 50 ms, waits
//       for them to expire, prints "compacting", removes them with removeExpired() (which deletes
//       their rows a batch at a time, gives pages back and compacts segments) and prints
//       "compacted"; until it is killed.
//   HoardDiskStress busy DIR SECONDS
//       Stores and reads back 48 keys of 100 B, 10 KB and 100 KB for SECONDS, printing
//       "tick OK ERRORS WRONG" every 200 ms (operations that succeeded, threw, and read back
//       a value that does not verify since the last tick), and "error ..." for the first errors.
//       Exits 0 unless it is killed. The tests damage the folder under it.
//   HoardDiskStress overwrite-loop DIR SIZE_LIMIT SECONDS VALUE_BYTES KEYS [MIN_WRITES]
//       Overwrites KEYS keys with VALUE_BYTES-byte values (removing one every eight writes, reading
//       one key per write) under
//       SIZE_LIMIT for SECONDS, and on until it has made MIN_WRITES writes (at most 300 s: a loaded
//       machine writes slowly); prints "writes N".
//   HoardDiskStress torture DIR SIZE_LIMIT WORKER FIRST_VERSION LOG
//       Works on its own keys "wWORKER-k0" to "-k23" until it is killed: stores (versions from
//       FIRST_VERSION up, values of 0 B to 2 MiB), removals, trims, expiry sweeps of keys of its
//       own that expire at once, and reads of its keys checked against what it last stored. Appends
//       to LOG, one write(2) per line: "store KEY VERSION" before a store and "stored KEY VERSION"
//       once it returned, "remove KEY" and "removed KEY", and "wrong KEY ..." for a read that is
//       neither its last value nor (with a limit that evicts) a miss.
//   HoardDiskStress prune-loop DIR SIZE_LIMIT
//       Trims the cache under SIZE_LIMIT (as `hoard cache prune`), removes expired entries, and
//       sleeps 200 ms, until it is killed.
//   HoardDiskStress open DIR
//       Opens a cache on DIR, stores a value, reads its size; prints "opened".
//   HoardDiskStress hoard-expire-all DIR
//       Opens a Hoard on DIR, calls expireAll() and prints "expired" (the Hoard fetching tests).
//   HoardDiskStress hoard-get DIR KEY
//       Opens a Hoard on DIR and prints the String stored under KEY, or "nil" when it has expired.
//   HoardDiskStress bad-values DIR
//       Calls every entry point of `BadValueCases` with its bad value, each in a new folder under
//       DIR, and prints "refused NAME" or "accepted NAME" per case. A trap kills the process, so
//       exit status 0 with every case printed shows that none traps.
//   HoardDiskStress readme-shared-cache
//       Runs the Thumbnails article's shared cache example with Hoard.shared (see ReadmeSharedCacheExample.swift).
//   HoardDiskStress readme-storage
//       Runs the README's storage example in $XDG_CACHE_HOME (see ReadmeStorageExample.swift).
//   HoardDiskStress shared-instance
//       Prints Hoard.shared's name and folder.

import Foundation
import Hoard
import HoardSystem
import HoardTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("HoardDiskStress: \(message)\n".utf8))
    exit(2)
}

func writeLoop(_ arguments: [String]) throws -> Never {
    guard arguments.count == 3, let version = UInt64(arguments[1]), let keyCount = Int(arguments[2])
    else { fail("usage: write-loop DIR VERSION KEYS") }
    // No size limit to speak of: the test wants every key to keep a value.
    let cache = try DiskCache(directory: URL(filePath: arguments[0]), configuration: .init(sizeLimit: 1 << 50))
    let keys = (0..<keyCount).map { "key-\($0)" }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    // Two threads on disjoint halves of the keys: while one makes a value the other writes, so
    // that most moments a kill can land on are mid-write.
    Thread.detachNewThread {
        writeForever(cache, keys: keys.enumerated().filter { $0.offset % 2 == 1 }.map(\.element), version: version)
    }
    writeForever(cache, keys: keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element), version: version)
}

/// Stores the values of `keys` at `version` in a random order, over and over; prints the key and
/// length of each value once it is stored.
func writeForever(_ cache: DiskCache, keys: [String], version: UInt64) -> Never {
    var values: [String: Data] = [:]
    while true {
        for key in keys.shuffled() {
            let value =
                values[key]
                ?? StressValue.make(
                    key: key, version: version, byteCount: StressValueSize.byteCount(key: key, version: version))
            values[key] = value
            do {
                try cache.store(value, forKey: key)
            } catch {
                fail("\(key): \(error)")
            }
            FileHandle.standardOutput.write(Data("\(key) \(value.count)\n".utf8))
        }
    }
}

func compactLoop(_ arguments: [String]) throws -> Never {
    guard arguments.count == 3, let keepCount = Int(arguments[1]), let churnCount = Int(arguments[2]) else {
        fail("usage: compact-loop DIR KEEP CHURN")
    }
    // A 16 MiB limit (never reached by KEEP 300 and CHURN 1000: about 11 MB live) makes 4 MiB
    // segments, so that the churn fills two a round and removeExpired() also moves live records
    // out of old ones.
    let cache = try DiskCache(directory: URL(filePath: arguments[0]), configuration: .init(sizeLimit: 16 << 20))
    for index in 0..<keepCount {
        try cache.store(StressValue.make(key: "keep-\(index)", version: 1, byteCount: 8192), forKey: "keep-\(index)")
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var round: UInt64 = 0
    while true {
        round += 1
        for index in 0..<churnCount {
            let key = "churn-\(index)"
            try cache.store(
                StressValue.make(key: key, version: round, byteCount: 8192), forKey: key, expiry: .seconds(0.05))
        }
        usleep(60_000)
        FileHandle.standardOutput.write(Data("compacting\n".utf8))
        try cache.removeExpired()
        FileHandle.standardOutput.write(Data("compacted\n".utf8))
    }
}

func stress(_ arguments: [String]) throws -> Never {
    guard arguments.count == 5, let seconds = Double(arguments[1]), let workerCount = Int(arguments[2]),
        let sizeLimit = Int(arguments[3]), let keyCount = Int(arguments[4])
    else { fail("usage: stress DIR SECONDS WORKERS SIZE_LIMIT KEYS") }
    let log = LogCounter()
    // A rescan interval of 0: every write is followed by a scan, so the processes together keep
    // the folder within the limit once they stop (see DiskCache's documentation).
    // Eight workers trimming after every write keep the write lock busy.
    let configuration = DiskCache.Configuration(
        sizeLimit: sizeLimit, recencyUpdateInterval: 0, rescanInterval: 0, logger: log.logger()
    ).waitingLongForTheWriteLock()
    let cache = try DiskCache(directory: URL(filePath: arguments[0]), configuration: configuration)
    let total = Lock(StressCounts())
    let deadline = Date().addingTimeInterval(seconds)
    let finished = DispatchGroup()
    for _ in 0..<workerCount {
        finished.enter()
        Thread.detachNewThread {
            let counts = stressWorker(cache, keyCount: keyCount, until: deadline)
            total.withLock { $0.add(counts) }
            finished.leave()
        }
    }
    finished.wait()
    cache.waitForScheduledTrims()  // exits with no trim running (LeakSanitizer's check at exit)
    var result = total.withLock { $0 }
    let logged = log.current
    result.trimsThatRemoved = logged.trimsThatRemoved
    result.errors += logged.warnings.count
    result.failures += logged.warnings.map { "logged: \($0)" }
    print(result.summary)
    for failure in result.failures.prefix(20) { print("failure: \(failure)") }
    exit(result.errors == 0 && result.wrongValues == 0 ? 0 : 1)
}

/// One worker of `stress`: random operations on random keys until `deadline`.
func stressWorker(_ cache: DiskCache, keyCount: Int, until deadline: Date) -> StressCounts {
    var generator = SystemRandomNumberGenerator()
    var counts = StressCounts()
    while Date() < deadline {
        let key = "k\(Int.random(in: 0..<keyCount, using: &generator))"
        do {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<45:
                let value = StressValue.make(
                    key: key, version: UInt64.random(in: 0...UInt64.max, using: &generator),
                    byteCount: Int.random(in: 0...StressCounts.maximumValueByteCount, using: &generator))
                try cache.store(value, forKey: key)
                counts.stores += 1
                counts.storedBytes += value.count
            case 45..<85:
                counts.reads += 1
                if let data = try cache.data(forKey: key) {
                    counts.hits += 1
                    if StressValue.verifiedVersion(of: data, key: key) == nil {
                        counts.wrongValues += 1
                        counts.failures.append("wrong value for \(key): \(data.count) bytes")
                    }
                }
            case 85..<95:
                try cache.remove(forKey: key)
                counts.removes += 1
            default:
                try cache.trim()
                counts.trims += 1
            }
        } catch {
            counts.errors += 1
            counts.failures.append("\(key): \(error)")
        }
    }
    return counts
}

func busy(_ arguments: [String]) throws {
    guard arguments.count == 2, let seconds = Double(arguments[1]) else { fail("usage: busy DIR SECONDS") }
    let cache = try DiskCache(directory: URL(filePath: arguments[0]))
    let sizes = [100, 10_000, 100_000]
    let values = (0..<48).map { StressValue.make(key: "busy-\($0)", version: 1, byteCount: sizes[$0 % 3]) }
    let deadline = Date().addingTimeInterval(seconds)
    var nextTick = Date()
    var (ok, errors, wrong, reported) = (0, 0, 0, 0)
    var index = 0
    while Date() < deadline {
        let key = "busy-\(index % values.count)"
        do {
            if index % 2 == 0 {
                try cache.store(values[index % values.count], forKey: key)
            } else if let data = try cache.data(forKey: key), data != values[index % values.count] {
                wrong += 1
            }
            ok += 1
        } catch {
            errors += 1
            if reported < 3 {
                reported += 1
                print("error \(error)")
            }
        }
        index += 1
        if Date() >= nextTick {
            print("tick \(ok) \(errors) \(wrong)")
            fflush(nil)
            (ok, errors, wrong) = (0, 0, 0)
            nextTick = Date().addingTimeInterval(0.2)
        }
    }
    // Only what the last tick did not count: a tick just before the deadline leaves nothing, and an
    // empty line would read as a process that stopped making progress.
    if ok + errors + wrong > 0 { print("tick \(ok) \(errors) \(wrong)") }
    // Returns, rather than exit(0) with its values still held: LeakSanitizer reads those as leaks.
}

func overwriteLoop(_ arguments: [String]) throws {
    guard (5...6).contains(arguments.count), let sizeLimit = Int(arguments[1]), let seconds = Double(arguments[2]),
        let valueByteCount = Int(arguments[3]), let keyCount = Int(arguments[4]),
        let minimumWrites = arguments.count == 6 ? Int(arguments[5]) : 0
    else { fail("usage: overwrite-loop DIR SIZE_LIMIT SECONDS VALUE_BYTES KEYS [MIN_WRITES]") }
    let cache = try DiskCache(
        directory: URL(filePath: arguments[0]),
        configuration: DiskCache.Configuration(sizeLimit: sizeLimit).waitingLongForTheWriteLock())
    let start = Date()
    var writes = 0
    while Date().timeIntervalSince(start) < seconds || (writes < minimumWrites && Date().timeIntervalSince(start) < 300) {
        let key = "key-\(writes % keyCount)"
        try cache.store(StressValue.make(key: key, version: UInt64(writes), byteCount: valueByteCount), forKey: key)
        if writes % 8 == 0 { try cache.remove(forKey: "key-\((writes / 8) % keyCount)") }
        _ = try cache.data(forKey: "key-\(writes * 7 % keyCount)")  // readers hold the log as real ones do
        writes += 1
    }
    cache.waitForScheduledTrims()  // returns with no trim running (LeakSanitizer's check at exit)
    print("writes \(writes)")
}

func pruneLoop(_ arguments: [String]) throws -> Never {
    guard arguments.count == 2, let sizeLimit = Int(arguments[1]) else { fail("usage: prune-loop DIR SIZE_LIMIT") }
    let cache = try DiskCache(directory: URL(filePath: arguments[0]), configuration: .init(sizeLimit: sizeLimit))
    while true {
        try cache.removeExpired()
        try cache.trim()
        usleep(200_000)
    }
}

func torture(_ arguments: [String]) throws -> Never {
    guard arguments.count == 5, let sizeLimit = Int(arguments[1]), let worker = Int(arguments[2]),
        var version = UInt64(arguments[3])
    else { fail("usage: torture DIR SIZE_LIMIT WORKER FIRST_VERSION LOG") }
    let cache = try DiskCache(directory: URL(filePath: arguments[0]), configuration: .init(sizeLimit: sizeLimit))
    let log = open(arguments[4], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard log >= 0 else { fail("cannot open \(arguments[4])") }
    func note(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(log, $0.baseAddress, $0.count) }
    }
    let isScale = ProcessInfo.processInfo.environment["HOARD_TORTURE"] == "scale"
    let keys = (0..<24).map { "w\(worker)-k\($0)" }
    var last: [String: UInt64] = [:]  // what this process stored last, per key (nil: removed)
    var touched = Set<String>()  // the keys this process stored or removed: only these are checked
    var generator = SystemRandomNumberGenerator()
    while true {
        let key = keys.randomElement(using: &generator) ?? keys[0]
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<55:
            version += 1
            let size = min(StressValueSize.byteCount(key: key, version: version), 2 << 20)
            let value = StressValue.make(key: key, version: version, byteCount: size)
            note("store \(key) \(version)")
            try cache.store(value, forKey: key)
            note("stored \(key) \(version)")
            last[key] = version
            touched.insert(key)
        case 55..<65:
            note("remove \(key)")
            try cache.remove(forKey: key)
            note("removed \(key)")
            last[key] = nil
            touched.insert(key)
        case 65..<72:
            // At scale the pruning process trims (a trim reads every row).
            if !isScale { try cache.trim() }
        case 72..<77:
            for index in 0..<8 {
                let expiring = "w\(worker)-e\(index)"
                try cache.store(
                    StressValue.make(key: expiring, version: version, byteCount: 3_000 * index), forKey: expiring,
                    expiry: .seconds(0.001))
            }
            usleep(2_000)
            try cache.removeExpired()
        default:
            guard touched.contains(key) else { continue }
            let data = try cache.data(forKey: key)
            let read = data.flatMap { StressValue.verifiedVersion(of: $0, key: key) }
            if data != nil, read == nil {
                note("wrong \(key) unverifiable \(data?.count ?? 0) bytes")
            } else if let read, read != last[key] {
                note("wrong \(key) read \(read) last \(last[key].map(String.init) ?? "none")")
            } else if read == nil, last[key] != nil, sizeLimit >= 1 << 40 {
                note("wrong \(key) lost \(last[key] ?? 0)")
            }
        }
    }
}

/// A Hoard on DIR that reads the expiration mark on every lookup.
func openHoard(_ path: String) throws -> Hoard {
    var configuration = Hoard.Configuration(name: "test", directory: URL(filePath: path))
    configuration.expirationMarkRefreshInterval = 0
    return try Hoard(configuration: configuration)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "write-loop": try writeLoop(Array(arguments.dropFirst()))
    case "stress": try stress(Array(arguments.dropFirst()))
    case "compact-loop": try compactLoop(Array(arguments.dropFirst()))
    case "busy": try busy(Array(arguments.dropFirst()))
    case "torture": try torture(Array(arguments.dropFirst()))
    case "prune-loop": try pruneLoop(Array(arguments.dropFirst()))
    case "overwrite-loop": try overwriteLoop(Array(arguments.dropFirst()))
    case "open" where arguments.count == 2:
        // Eight at once, each trimming first.
        let cache = try DiskCache(
            directory: URL(filePath: arguments[1]), configuration: DiskCache.Configuration().waitingLongForTheWriteLock())
        try cache.store(Data("opened".utf8), forKey: "opened \(getpid())")
        _ = try cache.totalSize
        print("opened")
    case "hoard-expire-all" where arguments.count == 2:
        try await openHoard(arguments[1]).expireAll()
        print("expired")
    case "hoard-get" where arguments.count == 3:
        print(try await openHoard(arguments[1]).retrieve(String.self, forKey: arguments[2]) ?? "nil")
    case "hoard-fetch" where arguments.count == 5:
        // Fetches KEY through the cache, the fetch taking SECONDS and giving VALUE; prints
        // "fetching" when the fetch starts (the lease is held), then the value it got.
        let seconds = Double(arguments[3]) ?? 0
        let value = try await openHoard(arguments[1]).value(forKey: arguments[2]) { () async throws -> String in
            FileHandle.standardOutput.write(Data("fetching\n".utf8))
            try await Task.sleep(for: .seconds(seconds))
            return arguments[4]
        }
        print(value)
    case "bad-values" where arguments.count == 2:
        for (index, badCase) in BadValueCases.all.enumerated() {
            let folder = URL(filePath: arguments[1]).appending(path: "case-\(index)")
            let error = await badCase.call(folder)
            print("\(error == nil ? "accepted" : "refused") \(badCase.name)")
        }
    case "readme-shared-cache" where arguments.count == 1:
        try await runReadmeSharedCacheExample()
    case "readme-storage" where arguments.count == 1:
        try await runReadmeStorageExample()
    case "shared-instance" where arguments.count == 1:
        printSharedInstance()
    default: fail("usage: HoardDiskStress write-loop|stress|compact-loop|busy|torture|overwrite-loop|open|hoard-expire-all|hoard-get|hoard-fetch|bad-values|readme-shared-cache|readme-storage|shared-instance ...")
    }
} catch {
    fail("\(error)")
}
