import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("MemoryCache")
    struct MemoryCacheTests {
        @Test("stores, returns, replaces and removes values")
        func basicOperations() throws {
            let cache = try MemoryCache<String, Int>()
            #expect(cache.value(forKey: "a") == nil)
            try cache.setValue(1, forKey: "a")
            try cache.setValue(2, forKey: "b")
            #expect(cache.value(forKey: "a") == 1)
            #expect(cache.value(forKey: "b") == 2)
            #expect(cache.count == 2)

            try cache.setValue(10, forKey: "a")
            #expect(cache.value(forKey: "a") == 10)
            #expect(cache.count == 2)

            #expect(cache.removeValue(forKey: "a") == 10)
            #expect(cache.removeValue(forKey: "a") == nil)
            #expect(cache.value(forKey: "a") == nil)
            #expect(cache.count == 1)
        }

        @Test("the subscript reads, writes and removes")
        func subscriptAccess() throws {
            let cache = try MemoryCache<String, String>()
            cache["greeting"] = "hello"
            #expect(cache["greeting"] == "hello")
            cache["greeting"] = nil
            #expect(cache["greeting"] == nil)
            #expect(cache.count == 0)
        }

        @Test("removeAll empties the cache and keeps the statistics")
        func removeAll() throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 10))
            for key in 0..<5 {
                try cache.setValue(key, forKey: key, cost: 3)
            }
            _ = cache.value(forKey: 1)
            cache.removeAll()
            #expect(cache.count == 0)
            #expect(cache.totalCost == 0)
            #expect(cache.value(forKey: 1) == nil)
            #expect(cache.statistics == MemoryCache<Int, Int>.Statistics(hits: 1, misses: 1))
            try cache.setValue(7, forKey: 7)
            #expect(cache.value(forKey: 7) == 7)
        }

        @Test("counts hits, misses and evictions")
        func statistics() throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 2))
            try cache.setValue(1, forKey: 1)
            try cache.setValue(2, forKey: 2)
            _ = cache.value(forKey: 1)  // hit
            _ = cache.value(forKey: 3)  // miss
            try cache.setValue(3, forKey: 3)  // evicts 2
            _ = cache.value(forKey: 2)  // miss
            let statistics = cache.statistics
            #expect(statistics.hits == 1)
            #expect(statistics.misses == 2)
            #expect(statistics.evictions == 1)
            #expect(statistics.expirations == 0)
            #expect(statistics.hitRatio == 1.0 / 3.0)
            #expect(MemoryCacheStatistics().hitRatio == 0)
        }

        @Test("containsValue is neither a hit nor a use")
        func containsDoesNotTouch() throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 2))
            try cache.setValue(1, forKey: 1)
            try cache.setValue(2, forKey: 2)
            #expect(cache.containsValue(forKey: 1))
            #expect(!cache.containsValue(forKey: 3))
            try cache.setValue(3, forKey: 3)  // LRU: 1 is still the least recently used
            #expect(!cache.containsValue(forKey: 1))
            #expect(cache.statistics.hits == 0)
            #expect(cache.statistics.misses == 0)
        }

        @Test("never holds more entries than the count limit")
        func countLimit() throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 3))
            for key in 0..<10 {
                try cache.setValue(key, forKey: key)
                #expect(cache.count <= 3)
            }
            #expect(cache.count == 3)
            #expect(cache.statistics.evictions == 7)
        }

        @Test("a count limit of zero stores nothing")
        func zeroCountLimit() throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 0))
            try cache.setValue(1, forKey: 1)
            #expect(cache.count == 0)
            #expect(cache.value(forKey: 1) == nil)
            #expect(cache.statistics.evictions == 0)
        }

        @Test("evicts until the total cost fits")
        func costLimit() throws {
            let cache = try MemoryCache<String, Int>(configuration: .init(costLimit: 100))
            try cache.setValue(1, forKey: "a", cost: 40)
            try cache.setValue(2, forKey: "b", cost: 40)
            #expect(cache.totalCost == 80)
            try cache.setValue(3, forKey: "c", cost: 50)  // a goes
            #expect(cache.totalCost == 90)
            #expect(!cache.containsValue(forKey: "a"))
            try cache.setValue(4, forKey: "d", cost: 100)  // b and c go
            #expect(cache.totalCost == 100)
            #expect(cache.count == 1)
            #expect(cache.statistics.evictions == 3)
        }

        @Test("a value above the cost limit is not stored and removes the key's old value")
        func oversizedValue() throws {
            let cache = try MemoryCache<String, Int>(configuration: .init(costLimit: 100))
            try cache.setValue(1, forKey: "a", cost: 10)
            try cache.setValue(2, forKey: "b", cost: 10)
            try cache.setValue(3, forKey: "a", cost: 101)
            #expect(cache.value(forKey: "a") == nil)
            #expect(cache.value(forKey: "b") == 2)
            #expect(cache.totalCost == 10)
            #expect(cache.statistics.evictions == 0)
            try cache.setValue(4, forKey: "c", cost: 100)  // exactly the limit fits
            #expect(cache.value(forKey: "c") == 4)
        }

        @Test("replacing a value updates the total cost and evicts others for a larger cost")
        func replacingChangesCost() throws {
            let cache = try MemoryCache<String, Int>(configuration: .init(costLimit: 100))
            try cache.setValue(1, forKey: "a", cost: 30)
            try cache.setValue(2, forKey: "b", cost: 30)
            try cache.setValue(3, forKey: "c", cost: 30)
            try cache.setValue(4, forKey: "a", cost: 10)
            #expect(cache.totalCost == 70)
            try cache.setValue(5, forKey: "c", cost: 70)  // b is the least recently used: it goes
            #expect(cache.value(forKey: "c") == 5)
            #expect(!cache.containsValue(forKey: "b"))
            #expect(cache.value(forKey: "a") == 4)
            #expect(cache.totalCost == 80)
        }

        @Test("a replaced entry chosen as the victim is stored again as a new entry")
        func replacedEntryIsItsOwnVictim() throws {
            // FIFO ignores the overwrite, so the oldest entry "a" is the first victim.
            let cache = try MemoryCache<String, Int>(configuration: .init(costLimit: 100, evictionPolicy: .fifo))
            try cache.setValue(1, forKey: "a", cost: 50)
            try cache.setValue(2, forKey: "b", cost: 50)
            try cache.setValue(3, forKey: "a", cost: 60)  // a evicted, then b, then a stored
            #expect(cache.value(forKey: "a") == 3)
            #expect(!cache.containsValue(forKey: "b"))
            #expect(cache.totalCost == 60)
            #expect(cache.statistics.evictions == 2)
            try cache.setValue(4, forKey: "c", cost: 40)  // a is now the newest entry: nothing goes
            #expect(cache.count == 2)
        }

        @Test("the configuration's cost function prices values stored without a cost")
        func costFunction() throws {
            let cache = try MemoryCache<String, [UInt8]>(configuration: .init(costLimit: 10, cost: { $0.count }))
            try cache.setValue([1, 2, 3, 4, 5, 6], forKey: "a")
            cache["b"] = [1, 2, 3, 4]
            #expect(cache.totalCost == 10)
            try cache.setValue([1], forKey: "c", cost: 0)  // an explicit cost wins
            #expect(cache.totalCost == 10)
            #expect(cache.count == 3)
            cache["d"] = Array(repeating: 0, count: 11)
            #expect(cache.value(forKey: "d") == nil)
        }

        @Test("is safe to use from many threads at once")
        func concurrentUse() async throws {
            let cache = try MemoryCache<Int, Int>(configuration: .init(countLimit: 64, costLimit: 1_000, evictionPolicy: .s3fifo))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var generator = SplitMix64(seed: UInt64(worker))
                        for _ in 0..<5_000 {
                            let key = Int.random(in: 0..<200, using: &generator)
                            switch Int.random(in: 0..<10, using: &generator) {
                            case 0..<6:
                                if let value = cache.value(forKey: key) {
                                    #expect(value == key)
                                }
                            case 6..<9:
                                try cache.setValue(key, forKey: key, cost: Int.random(in: 0...40, using: &generator))
                            default:
                                cache.removeValue(forKey: key)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(cache.count <= 64)
            #expect(cache.totalCost <= 1_000)
            let violations = cache.withStorage { $0.invariantViolations() }
            #expect(violations == [])
            let statistics = cache.statistics
            #expect(statistics.hits + statistics.misses > 0)
        }
    }
}
