import Benchmark
import Hoard
import HoardBenchmarkSupport

// MemoryCache<String, Data>: every workload, for every eviction policy, on 1 and on 2 threads that
// share one cache. One iteration is 1,000,000 operations (scaling factor mega), so the wall clock
// is per operation; ops/s is the rate of all threads together; 2 threads split the operations evenly.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, Rate.operationsPerSecond, .mallocCountTotal],
        units: [Rate.operationsPerSecond: .kilo],
        warmupIterations: 1,
        scalingFactor: .mega,
        maxDuration: .seconds(2),
        maxIterations: 20)

    for workload in MemoryWorkload.allCases {
        for policy in EvictionPolicy.allCases {
            for threadCount in [1, 2] {
                var configuration = Benchmark.defaultConfiguration
                if workload == .zipfMix {
                    configuration.metrics.append(Rate.hitsPerThousandReads)
                }
                let name = "\(workload), \(policy.benchmarkName), \(threadCount) thread\(threadCount == 1 ? "" : "s")"
                Benchmark(name, configuration: configuration) { benchmark, fixture in
                    let operations = benchmark.scaledIterations
                    let hits = benchmark.recordRate(Rate.operationsPerSecond, amount: Double(operations.count)) {
                        fixture.run(operations, threadCount: threadCount)
                    }
                    blackHole(hits)
                    if workload == .zipfMix {
                        benchmark.measurement(
                            Rate.hitsPerThousandReads, hits * 1_000 / workload.readCount(operations))
                    }
                } setup: {
                    MemoryWorkload.Fixture(workload: workload, policy: policy)
                }
            }
        }
    }
}

extension EvictionPolicy {
    /// The policy's usual spelling, for benchmark names.
    var benchmarkName: String {
        switch self {
        case .lru: "LRU"
        case .fifo: "FIFO"
        case .lfu: "LFU"
        case .s3fifo: "S3-FIFO"
        }
    }
}
