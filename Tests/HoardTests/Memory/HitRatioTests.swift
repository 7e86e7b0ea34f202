import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

extension MemoryTests {
    /// Hit ratios of the eviction policies on Zipf-distributed traces.
    ///
    /// The CI test uses 10,000 keys and 200,000 requests. For the full table (100,000 keys,
    /// 1,000,000 requests, every policy) run:
    ///
    /// ```
    /// HOARD_PRINT_HIT_RATIOS=1 swift test --filter HitRatioTests/table
    /// ```
    @Suite("Memory cache hit ratios")
    struct HitRatioTests {
        @Test("S3-FIFO has a better hit ratio than LRU on Zipf traces", arguments: HitRatioSimulation.configurations)
        func s3fifoBeatsLRU(_ configuration: HitRatioSimulation.Configuration) throws {
            let keyCount = 10_000
            let trace = ZipfDistribution(keyCount: keyCount, skew: configuration.skew).trace(length: 200_000, seed: 42)
            let capacity = keyCount * configuration.cachePercentage / 100
            let lru = try HitRatioSimulation.hitRatio(policy: .lru, capacity: capacity, trace: trace)
            let s3fifo = try HitRatioSimulation.hitRatio(policy: .s3fifo, capacity: capacity, trace: trace)
            #expect(s3fifo > lru, "S3-FIFO \(s3fifo) vs LRU \(lru)")
        }

        @Test(
            "the hit-ratio table: ratios rise with the cache's size, S3-FIFO leads LRU and FIFO (printed; HOARD_PRINT_HIT_RATIOS=1)",
            .enabled(if: ProcessInfo.processInfo.environment["HOARD_PRINT_HIT_RATIOS"] == "1")
        )
        func table() throws {
            let keyCount = 100_000
            let requestCount = 1_000_000
            var lines = [
                "Hit ratio, Zipf trace: \(keyCount) keys, \(requestCount) requests, insert on miss",
                "",
                "| policy  | s=0.8, 1% | s=0.8, 10% | s=1.0, 1% | s=1.0, 10% |",
                "|---------|-----------|------------|-----------|------------|",
            ]
            let traces = [0.8, 1.0].map {
                ZipfDistribution(keyCount: keyCount, skew: $0).trace(length: requestCount, seed: 42)
            }
            var ratios: [EvictionPolicy: [Double]] = [:]
            for policy in EvictionPolicy.allCases {
                var row = "| " + "\(policy)".padding(toLength: 7, withPad: " ", startingAt: 0) + " |"
                for configuration in HitRatioSimulation.configurations {
                    let trace = traces[configuration.skew == 0.8 ? 0 : 1]
                    let capacity = keyCount * configuration.cachePercentage / 100
                    let ratio = try HitRatioSimulation.hitRatio(policy: policy, capacity: capacity, trace: trace)
                    ratios[policy, default: []].append(ratio)
                    #expect(ratio > 0 && ratio < 1, "\(policy) \(configuration): \(ratio)")
                    let cell = String(format: "%.2f%%", ratio * 100)
                    let width = configuration.cachePercentage == 1 ? 9 : 10
                    row += " " + String(repeating: " ", count: max(0, width - cell.count)) + cell + " |"
                }
                lines.append(row)
            }
            print(lines.joined(separator: "\n"))
            let columns = HitRatioSimulation.configurations
            for (policy, row) in ratios {
                for (index, configuration) in columns.enumerated() where configuration.cachePercentage == 10 {
                    let smaller = columns.firstIndex { $0.skew == configuration.skew && $0.cachePercentage == 1 }
                    if let smaller { #expect(row[index] > row[smaller], "\(policy): a larger cache hits less") }
                }
            }
            for index in columns.indices {
                let s3fifo = ratios[.s3fifo]?[index] ?? 0
                #expect(s3fifo > (ratios[.lru]?[index] ?? 1) && s3fifo > (ratios[.fifo]?[index] ?? 1), "column \(index)")
            }
        }
    }
}
