// A child process for the DiskCache tests (Tests/HoardTests/Disk/DiskCacheProcessTests.swift).
//
//   HoardDiskStress write-loop DIR VERSION KEYS BYTES
//       Prints "ready", then stores StressValue(key-i, VERSION, BYTES) for i in 0..<KEYS, over and
//       over, until it is killed.
//   HoardDiskStress stress DIR SECONDS THREADS SIZE_LIMIT
//       THREADS threads store, read, verify and remove 32 shared keys for SECONDS. Prints a summary;
//       exits 0 when no operation threw and every value read back verified, 1 otherwise.
//   HoardDiskStress hoard-expire-all DIR
//       Opens a Hoard on DIR, calls expireAll() and prints "expired" (the Hoard fetching tests).
//   HoardDiskStress hoard-get DIR KEY
//       Opens a Hoard on DIR and prints the String stored under KEY, or "nil" when it has expired.

import Foundation
import Hoard
import HoardTestSupport
import Synchronization

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
    guard arguments.count == 4, let version = UInt64(arguments[1]), let keyCount = Int(arguments[2]),
        let byteCount = Int(arguments[3])
    else { fail("usage: write-loop DIR VERSION KEYS BYTES") }
    let cache = try DiskCache(
        directory: URL(filePath: arguments[0]), configuration: .init(sizeLimit: 1 << 30))
    let values = (0..<keyCount).map { StressValue.make(key: "key-\($0)", version: version, byteCount: byteCount) }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        for index in 0..<keyCount {
            try cache.store(values[index], forKey: "key-\(index)")
        }
    }
}

struct Counters {
    var stores = 0
    var reads = 0
    var hits = 0
    var removes = 0
    var failures: [String] = []
}

func stress(_ arguments: [String]) throws -> Never {
    guard arguments.count == 4, let seconds = Double(arguments[1]), let threadCount = Int(arguments[2]),
        let sizeLimit = Int(arguments[3])
    else { fail("usage: stress DIR SECONDS THREADS SIZE_LIMIT") }
    let cache = try DiskCache(
        directory: URL(filePath: arguments[0]),
        configuration: .init(sizeLimit: sizeLimit, recencyUpdateInterval: 0, rescanInterval: 0.05))
    let counters = Mutex(Counters())
    let deadline = Date().addingTimeInterval(seconds)
    let finished = DispatchGroup()
    for _ in 0..<threadCount {
        finished.enter()
        Thread.detachNewThread {
            var generator = SystemRandomNumberGenerator()
            var local = Counters()
            while Date() < deadline {
                let key = "k\(Int.random(in: 0..<32, using: &generator))"
                do {
                    switch Int.random(in: 0..<100, using: &generator) {
                    case 0..<50:
                        let value = StressValue.make(
                            key: key, version: UInt64.random(in: 0...UInt64.max, using: &generator),
                            byteCount: Int.random(in: 0...65_536, using: &generator))
                        try cache.store(value, forKey: key)
                        local.stores += 1
                    case 50..<95:
                        local.reads += 1
                        if let data = try cache.data(forKey: key) {
                            local.hits += 1
                            if StressValue.verifiedVersion(of: data, key: key) == nil {
                                local.failures.append("wrong value for \(key): \(data.count) bytes")
                            }
                        }
                    default:
                        try cache.remove(forKey: key)
                        local.removes += 1
                    }
                } catch {
                    local.failures.append("\(key): \(error)")
                }
            }
            counters.withLock {
                $0.stores += local.stores
                $0.reads += local.reads
                $0.hits += local.hits
                $0.removes += local.removes
                $0.failures += local.failures
            }
            finished.leave()
        }
    }
    finished.wait()
    let result = counters.withLock { $0 }
    print("stores=\(result.stores) reads=\(result.reads) hits=\(result.hits)", terminator: " ")
    print("removes=\(result.removes) failures=\(result.failures.count)")
    for failure in result.failures.prefix(20) { print("failure: \(failure)") }
    exit(result.failures.isEmpty ? 0 : 1)
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
    case "hoard-expire-all" where arguments.count == 2:
        try await openHoard(arguments[1]).expireAll()
        print("expired")
    case "hoard-get" where arguments.count == 3:
        print(try await openHoard(arguments[1]).retrieve(String.self, forKey: arguments[2]) ?? "nil")
    default: fail("usage: HoardDiskStress write-loop|stress|hoard-expire-all|hoard-get ...")
    }
} catch {
    fail("\(error)")
}
