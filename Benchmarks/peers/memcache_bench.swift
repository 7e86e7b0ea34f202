// Peer: the memory caches a Swift user has without Hoard: Foundation's NSCache (swift-corelibs-foundation
// on Linux) and a dictionary behind the standard library's Mutex, the practical bound for any locked
// memory cache (it never evicts). A plain dictionary without a lock is printed too, as the floor.
//
// Build: swiftc -O -parse-as-library memcache_bench.swift -o memcache_bench
// Usage: memcache_bench [PASSES=5]
//
// Workload, as HoardMeasure memory: 100,000 String keys "k<i>", one 16-byte Data value, one thread;
// each pass sets every key into an empty cache, then gets every key (all hits). NSCache is measured
// with NSString keys built beforehand, and with a Swift String bridged on every call (what a
// String-keyed wrapper does); NSData values. One line per cache, the medians of the passes in
// operations per second, read by Benchmarks/compare (hoardcompare/memory.py):
//   Mutex<[String: Data]>     set     12345678  get     23456789   (set passes: ... ; get passes: ...)

import Foundation
import Synchronization

let keyCount = 100_000

/// A dictionary behind one Mutex: every set and get takes the lock.
final class LockedDictionary: Sendable {
    private let storage = Mutex<[String: Data]>([:])

    func set(_ value: Data, for key: String) {
        storage.withLock { $0[key] = value }
    }

    func value(for key: String) -> Data? {
        storage.withLock { $0[key] }
    }
}

/// Seconds taken by `body`.
func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Set and get rates of every pass, per cache name, in the order first measured.
struct Figures {
    private(set) var names: [String] = []
    private var rates: [String: (sets: [Double], gets: [Double])] = [:]

    /// Records one pass: the seconds its sets and its gets of every key took.
    mutating func record(_ name: String, setSeconds: Double, getSeconds: Double, hits: Int) {
        precondition(hits == keyCount, "\(name) answered \(hits) of \(keyCount) gets")
        if rates[name] == nil { names.append(name) }
        var entry = rates[name] ?? ([], [])
        entry.sets.append(Double(keyCount) / setSeconds)
        entry.gets.append(Double(keyCount) / getSeconds)
        rates[name] = entry
    }

    func line(_ name: String) -> String {
        guard let entry = rates[name] else { return name }
        let passes = { (values: [Double]) in values.map { String(format: "%.2fM", $0 / 1e6) }.joined(separator: " ") }
        let label = name.padding(toLength: max(52, name.count), withPad: " ", startingAt: 0)
        return label + String(format: " set %12.0f  get %12.0f", median(entry.sets), median(entry.gets))
            + "   (set passes: \(passes(entry.sets)); get passes: \(passes(entry.gets)))"
    }
}

@main
struct MemoryCacheBenchmark {
    static func main() {
        let arguments = CommandLine.arguments
        guard let passes = arguments.count > 1 ? Int(arguments[1]) : 5, passes > 0 else {
            print("usage: memcache_bench [PASSES=5]")
            exit(64)
        }
        let keys = (0..<keyCount).map { "k\($0)" }
        let objectKeys = keys.map { NSString(string: $0) }
        let value = Data(repeating: 7, count: 16)
        let object = NSData(data: value)
        var figures = Figures()

        for _ in 0..<passes {
            do {
                let cache = NSCache<NSString, NSData>()
                let setSeconds = seconds { for key in objectKeys { cache.setObject(object, forKey: key) } }
                var hits = 0
                let getSeconds = seconds { for key in objectKeys where cache.object(forKey: key) != nil { hits += 1 } }
                figures.record("NSCache<NSString,NSData> (prebuilt NSString keys)",
                               setSeconds: setSeconds, getSeconds: getSeconds, hits: hits)
            }
            do {
                let cache = NSCache<NSString, NSData>()
                let setSeconds = seconds { for key in keys { cache.setObject(object, forKey: key as NSString) } }
                var hits = 0
                let getSeconds = seconds { for key in keys where cache.object(forKey: key as NSString) != nil { hits += 1 } }
                figures.record("NSCache<NSString,NSData> (String bridged per call)",
                               setSeconds: setSeconds, getSeconds: getSeconds, hits: hits)
            }
            do {
                let cache = LockedDictionary()
                let setSeconds = seconds { for key in keys { cache.set(value, for: key) } }
                var hits = 0
                let getSeconds = seconds { for key in keys where cache.value(for: key) != nil { hits += 1 } }
                figures.record("Mutex<[String: Data]>", setSeconds: setSeconds, getSeconds: getSeconds, hits: hits)
            }
            do {
                var dictionary: [String: Data] = [:]
                let setSeconds = seconds { for key in keys { dictionary[key] = value } }
                var hits = 0
                let getSeconds = seconds { for key in keys where dictionary[key] != nil { hits += 1 } }
                figures.record("[String: Data] (no lock)", setSeconds: setSeconds, getSeconds: getSeconds, hits: hits)
            }
        }
        print("\(keyCount) keys, \(passes) passes, median ops/s")
        for name in figures.names.sorted() {
            print(figures.line(name))
        }
    }
}
