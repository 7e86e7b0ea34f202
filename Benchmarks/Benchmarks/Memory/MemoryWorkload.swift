import Dispatch
import Foundation
import Hoard
import HoardBenchmarkSupport
import Synchronization

/// What the memory benchmarks do to a cache, over 100,000 String keys and 16-byte values.
enum MemoryWorkload: CaseIterable, CustomStringConvertible {
    /// Reads of keys that are all cached, in a uniformly random order.
    case getHit
    /// Reads of keys that are not cached, from a cache that holds 100,000 others.
    case getMiss
    /// Writes of the 100,000 keys in turn into a cache limited to 10,000 entries: each one evicts.
    case setWithEviction
    /// A Zipf-distributed trace (exponent 0.99) over the 100,000 keys, against a cache limited to
    /// 10,000 entries: nine reads, then one write.
    case zipfMix

    /// How many distinct keys the workloads use.
    static let keyCount = 100_000
    /// The count limit of the caches that must evict.
    static let evictingCountLimit = 10_000

    var description: String {
        switch self {
        case .getHit: "get hit"
        case .getMiss: "get miss"
        case .setWithEviction: "set with eviction"
        case .zipfMix: "zipf 90/10 get/set"
        }
    }

    /// Whether operation `index` of the trace is a write.
    func isWrite(_ index: Int) -> Bool {
        switch self {
        case .getHit, .getMiss: false
        case .setWithEviction: true
        case .zipfMix: index % 10 == 9
        }
    }

    /// How many of `operations` are reads.
    func readCount(_ operations: Range<Int>) -> Int {
        operations.count { !isWrite($0) }
    }

    /// A cache prepared for one workload and policy, and the trace of key indices to replay.
    final class Fixture: Sendable {
        let workload: MemoryWorkload
        let cache: MemoryCache<String, Data>
        let keys: [String]
        let trace: [UInt32]
        let value = Data(repeating: 0xAB, count: 16)

        init(workload: MemoryWorkload, policy: EvictionPolicy) {
            self.workload = workload
            let countLimit = workload == .getHit || workload == .getMiss ? Int.max : MemoryWorkload.evictingCountLimit
            cache = Self.unwrap { try MemoryCache(configuration: .init(countLimit: countLimit, evictionPolicy: policy)) }
            switch workload {
            case .getHit:
                keys = Traces.cachedKeys
                trace = Traces.uniform
            case .getMiss:
                keys = Traces.absentKeys
                trace = Traces.uniform
            case .setWithEviction:
                keys = Traces.cachedKeys
                trace = Traces.sequential
            case .zipfMix:
                keys = Traces.cachedKeys
                trace = Traces.zipf
            }
            if countLimit == .max {
                for key in Traces.cachedKeys { Self.unwrap { try cache.setValue(value, forKey: key) } }
            }
        }

        /// Replays `operations` (indices into the trace, wrapping) on `threadCount` threads that
        /// share the cache, each taking an equal slice.
        ///
        /// - Returns: How many reads found a value.
        func run(_ operations: Range<Int>, threadCount: Int) -> Int {
            guard threadCount > 1 else { return replay(operations) }
            let hits = Atomic(0)
            let sliceLength = (operations.count + threadCount - 1) / threadCount
            DispatchQueue.concurrentPerform(iterations: threadCount) { slice in
                let start = operations.lowerBound + slice * sliceLength
                let end = min(start + sliceLength, operations.upperBound)
                hits.add(replay(start..<end), ordering: .relaxed)
            }
            return hits.load(ordering: .relaxed)
        }

        /// The result of `body`, which cannot fail with the constant, valid arguments used here.
        private static func unwrap<T>(_ body: () throws -> T) -> T {
            do { return try body() } catch { preconditionFailure("benchmark setup failed: \(error)") }
        }

        private func replay(_ operations: Range<Int>) -> Int {
            var hits = 0
            for index in operations {
                let key = keys[Int(trace[index % trace.count])]
                if workload.isWrite(index) {
                    Self.unwrap { try cache.setValue(value, forKey: key) }
                } else if cache.value(forKey: key) != nil {
                    hits += 1
                }
            }
            return hits
        }
    }
}

/// Keys and traces, built once per process on first use, the same on every run.
enum Traces {
    /// The length of every trace: one iteration at scaling factor mega.
    static let length = 1_000_000

    /// `key-0` ... `key-99999`.
    static let cachedKeys = (0..<MemoryWorkload.keyCount).map { "key-\($0)" }
    /// `absent-0` ... `absent-99999`.
    static let absentKeys = (0..<MemoryWorkload.keyCount).map { "absent-\($0)" }

    /// Key indices uniformly at random.
    static let uniform: [UInt32] = {
        var generator = SeededGenerator(seed: 1)
        return (0..<length).map { _ in UInt32.random(in: 0..<UInt32(MemoryWorkload.keyCount), using: &generator) }
    }()

    /// Key indices 0, 1, 2, ... 99999, 0, 1, ...
    static let sequential: [UInt32] = (0..<length).map { UInt32($0 % MemoryWorkload.keyCount) }

    /// Key indices by Zipf's law, exponent 0.99: index 0 is the most popular.
    static let zipf: [UInt32] = {
        var generator = SeededGenerator(seed: 2)
        let distribution = ZipfDistribution(count: MemoryWorkload.keyCount, exponent: 0.99)
        return (0..<length).map { _ in UInt32(distribution.next(using: &generator)) }
    }()
}
