import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("FIFO eviction")
    struct FIFOStrategyTests {
        @Test("evicts in insertion order; hits and overwrites change nothing")
        func evictionOrder() throws {
            let (victims, keys) = try EvictionScript.victims(
                policy: .fifo, countLimit: 3,
                "s1 s2 s3 g1 g1 s4 g2 s5 s3 s6 s7"
            )
            #expect(victims == [1, 2, 3, 4])
            #expect(keys == [5, 6, 7])
        }

        @Test("a removed key that returns goes to the back of the line")
        func reinsertion() throws {
            let (victims, _) = try EvictionScript.victims(policy: .fifo, countLimit: 3, "s1 s2 s3 r1 s1 s4 s5")
            #expect(victims == [2, 3])
        }

        @Test("the strategy gives slots back oldest first")
        func strategy() throws {
            var strategy = FIFOStrategy()
            for slot in [5, 3, 8] {
                strategy.insert(slot, fingerprint: slot)
            }
            strategy.access(5)
            #expect(strategy.evict() == 5)
            strategy.remove(8)
            #expect(strategy.evict() == 3)
            #expect(strategy.evict() == nil)
        }
    }
}
