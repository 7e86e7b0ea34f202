import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("LFU eviction")
    struct LFUStrategyTests {
        @Test("evicts the least frequently used entry, the least recently used among ties")
        func evictionOrder() throws {
            let (victims, keys) = try EvictionScript.victims(
                policy: .lfu, countLimit: 3,
                // uses: 1:3 2:2 3:1 -> 3 goes; 4 hit to 2 uses after 2 -> 2 goes (older tie);
                // 5 (1 use) goes; 6 hit to 4 uses -> 4 (2 uses) goes; 7 (1 use) goes.
                "s1 s2 s3 g1 g1 g2 s4 g4 s5 s6 g6 g6 g6 s7 s8"
            )
            #expect(victims == [3, 2, 5, 4, 7])
            #expect(keys == [1, 6, 8])
        }

        @Test("an overwrite counts as a use")
        func overwriteCounts() throws {
            let (victims, _) = try EvictionScript.victims(policy: .lfu, countLimit: 2, "s1 s2 s1 s3 s4")
            #expect(victims == [2, 3])
        }

        @Test("the strategy keeps one bucket per use count and drops empty ones")
        func buckets() throws {
            var strategy = LFUStrategy()
            for slot in 0..<3 {
                strategy.insert(slot, fingerprint: slot)
            }
            strategy.access(0)
            strategy.access(0)
            strategy.access(1)
            #expect(strategy.frequency(ofEntry: 0) == 3)
            #expect(strategy.frequency(ofEntry: 1) == 2)
            #expect(strategy.frequency(ofEntry: 2) == 1)
            strategy.access(1)  // 1 joins 0 in the 3-use bucket; 0 arrived first
            #expect(strategy.frequency(ofEntry: 1) == 3)
            strategy.insert(3, fingerprint: 3)
            #expect(strategy.evict() == 2)
            #expect(strategy.evict() == 3)
            #expect(strategy.evict() == 0)  // joined the 3-use bucket before 1
            strategy.remove(1)
            #expect(strategy.count == 0)
            #expect(strategy.evict() == nil)
            strategy.insert(1, fingerprint: 1)
            #expect(strategy.frequency(ofEntry: 1) == 1)
        }
    }
}
