import Foundation
import Testing

@testable import HoardCore

extension MemoryTests {
    /// Single-thread throughput, printed when HOARD_MEASURE=1; meaningful in a release build:
    ///
    /// ```
    /// HOARD_MEASURE=1 swift test -c release -Xswiftc -enable-testing --filter MemoryCacheThroughputTests
    /// ```
    ///
    /// The workload is the one of `peers/memcache_bench.swift` (NSCache, `Mutex<[String: Data]>`):
    /// 100,000 keys `"k<i>"`, 16-byte `Data` values, every key set once, then read once, in order;
    /// the median of 5 runs. "set, evicting" stores the same keys in a cache with room for a tenth.
    @Suite("Memory cache throughput")
    struct MemoryCacheThroughputTests {
        static let keyCount = 100_000
        static let runs = 5

        @Test(
            "prints operations per second (HOARD_MEASURE=1)",
            .enabled(if: ProcessInfo.processInfo.environment["HOARD_MEASURE"] == "1")
        )
        func throughput() throws {
            let keys = (0..<Self.keyCount).map { "k\($0)" }
            let value = Data(repeating: 7, count: 16)
            var lines = [
                "\(Self.keyCount) String keys, 16-byte Data values, median of \(Self.runs) runs, ops/s",
                "",
                "| policy  | set (insert)  | get (hit)     | set, evicting |",
                "|---------|---------------|---------------|---------------|",
            ]
            for policy in EvictionPolicy.allCases {
                var sets: [Double] = []
                var gets: [Double] = []
                var evictingSets: [Double] = []
                for _ in 0..<Self.runs {
                    let cache = try MemoryCache<String, Data>(configuration: .init(evictionPolicy: policy))
                    sets.append(try Self.operationsPerSecond { for key in keys { try cache.setValue(value, forKey: key) } })
                    var hits = 0
                    gets.append(
                        Self.operationsPerSecond {
                            for key in keys where cache.value(forKey: key) != nil { hits += 1 }
                        }
                    )
                    #expect(hits == Self.keyCount)
                    let small = try MemoryCache<String, Data>(
                        configuration: .init(countLimit: Self.keyCount / 10, evictionPolicy: policy)
                    )
                    evictingSets.append(try Self.operationsPerSecond { for key in keys { try small.setValue(value, forKey: key) } })
                }
                let name = "\(policy)".padding(toLength: 7, withPad: " ", startingAt: 0)
                lines.append(
                    "| \(name) | \(Self.format(sets)) | \(Self.format(gets)) | \(Self.format(evictingSets)) |"
                )
            }
            print(lines.joined(separator: "\n"))
        }

        private static func operationsPerSecond(_ body: () throws -> Void) rethrows -> Double {
            let elapsed = try ContinuousClock().measure(body)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return Double(keyCount) / seconds
        }

        private static func format(_ samples: [Double]) -> String {
            let median = samples.sorted()[samples.count / 2]
            return String(format: "%11.2f M", median / 1_000_000)
        }
    }
}
