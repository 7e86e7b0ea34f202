import Foundation
import Hoard

/// MemoryCache set and get (hit) with every eviction policy: 100k String keys "k<i>", 16-byte
/// values, one thread, as `memcache_bench.swift` measures NSCache and `Mutex<[String: Data]>`.
func measureMemory(repetitions: Int) throws {
    let count = 100_000
    let keys = (0..<count).map { "k\($0)" }
    let value = Data(repeating: 7, count: 16)
    for policy in EvictionPolicy.allCases {
        var sets: [Double] = []
        var gets: [Double] = []
        for _ in 0..<repetitions {
            let cache = try MemoryCache<String, Data>(configuration: .init(evictionPolicy: policy))
            sets.append(Double(count) / (try seconds { for key in keys { try cache.setValue(value, forKey: key) } }))
            var found = 0
            gets.append(
                Double(count) / seconds { for key in keys where cache.value(forKey: key) != nil { found += 1 } })
            precondition(found == count, "MemoryCache \(policy) lost entries: \(found) of \(count) found")
        }
        print(
            String(
                format: "MemoryCache %-7@ set %6.2f M ops/s   get (hit) %6.2f M ops/s", "\(policy)",
                median(sets) / 1e6, median(gets) / 1e6))
    }
}
