import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("LRU eviction")
    struct LRUStrategyTests {
        @Test("evicts the least recently used entry; hits and overwrites count as uses")
        func evictionOrder() throws {
            let (victims, keys) = try EvictionScript.victims(
                policy: .lru, countLimit: 3,
                "s1 s2 s3 g1 s4 g3 s5 s6 s3 s7"
            )
            // order after each step, least recent first: 123, 231, 314 (2 out), 143, 435 (1 out),
            // 356 (4 out), 563, 637 (5 out)
            #expect(victims == [2, 1, 4, 5])
            #expect(keys == [3, 6, 7])
        }

        @Test("a miss does not count as a use; removal frees a place")
        func missesAndRemovals() throws {
            let (victims, keys) = try EvictionScript.victims(policy: .lru, countLimit: 2, "s1 s2 g9 r1 s3 s4")
            #expect(victims == [2])
            #expect(keys == [3, 4])
        }

        @Test("the strategy gives slots back least recently used first")
        func strategy() throws {
            var strategy = LRUStrategy()
            for slot in 0..<4 {
                strategy.insert(slot, fingerprint: slot)
            }
            strategy.access(0)
            strategy.remove(2)
            #expect(strategy.count == 3)
            #expect(strategy.evict() == 1)
            #expect(strategy.evict() == 3)
            #expect(strategy.evict() == 0)
            #expect(strategy.evict() == nil)
            strategy.insert(2, fingerprint: 2)
            strategy.removeAll()
            #expect(strategy.count == 0)
            #expect(strategy.evict() == nil)
        }
    }
}
