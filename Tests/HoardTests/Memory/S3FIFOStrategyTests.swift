import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("S3-FIFO eviction")
    struct S3FIFOStrategyTests {
        @Test("filters one-hit wonders in the small queue, promotes, remembers ghosts, gives second chances")
        func evictionOrder() throws {
            var script = try EvictionScript(policy: .s3fifo, countLimit: 4)
            // small (back first) 1 2 3 4; 1 hit twice, 2 once.
            try script.run("s1 s2 s3 s4 g1 g1 g2")
            // 1 was hit more than once: it moves to main. 2 was hit once: evicted, into the ghost.
            try script.run("s5")
            #expect(script.victims == [2])
            // 3 is evicted from small; 2 is in the ghost, so it enters main directly.
            try script.run("s2")
            #expect(script.victims == [2, 3])
            // small: 4 5, both hit twice; main (back first): 1 2, and 1 is hit once.
            try script.run("g1 g4 g4 g5 g5")
            // 4 and 5 move to main; small is empty, so main evicts: 1 gets a second chance, 2 goes.
            try script.run("s6")
            #expect(script.victims == [2, 3, 2])
            // 6 (never hit) leaves small into the ghost; 3 was in the ghost: it enters main.
            try script.run("s3")
            #expect(script.victims == [2, 3, 2, 6])
            // small is empty again; main (back first): 4 5 1 3, none hit since: 4 goes.
            try script.run("s7")
            #expect(script.victims == [2, 3, 2, 6, 4])
            #expect(script.keys == [1, 3, 5, 7])
        }

        @Test("a scan of one-time keys does not flush the frequently used ones")
        func scanResistance() throws {
            var script = try EvictionScript(policy: .s3fifo, countLimit: 20)
            let hot = (0..<10).map { "s\($0) g\($0) g\($0)" }.joined(separator: " ")
            try script.run(hot)
            let scan = (100..<200).map { "s\($0)" }.joined(separator: " ")
            try script.run(scan)
            #expect(script.keys.isSuperset(of: Set(0..<10)))

            var lru = try EvictionScript(policy: .lru, countLimit: 20)
            try lru.run(hot)
            try lru.run(scan)
            #expect(lru.keys.isDisjoint(with: Set(0..<10)))
        }

        @Test("the strategy caps counters at 3 and clears them on promotion")
        func counters() throws {
            var strategy = S3FIFOStrategy()
            for slot in 0..<3 {
                strategy.insert(slot, fingerprint: 100 + slot)
            }
            for _ in 0..<5 {
                strategy.access(0)
            }
            #expect(strategy.frequency(ofEntry: 0) == 3)
            // Evicting: 0 moves to main with a cleared counter, 1 is the victim.
            #expect(strategy.evict() == 1)
            #expect(strategy.frequency(ofEntry: 0) == 0)
            #expect(strategy.layout.small == [2])
            #expect(strategy.layout.main == [0])
            #expect(strategy.layout.ghostCount == 1)
            // 1's fingerprint is in the ghost: a new entry with it enters main.
            strategy.insert(1, fingerprint: 101)
            #expect(strategy.layout.main == [1, 0])
            #expect(strategy.layout.ghostCount == 0)
            // An explicit removal is not an eviction: it leaves no ghost.
            strategy.remove(2)
            #expect(strategy.layout.ghostCount == 0)
            #expect(strategy.count == 2)
            strategy.removeAll()
            #expect(strategy.count == 0)
            #expect(strategy.evict() == nil)
        }

        @Test("the ghost queue remembers a fingerprint for `capacity` insertions")
        func ghostQueue() throws {
            var ghost = GhostQueue()
            ghost.insert(1, capacity: 2)
            ghost.insert(2, capacity: 2)
            ghost.insert(3, capacity: 2)
            #expect(!ghost.contains(1))
            #expect(ghost.contains(2) && ghost.contains(3))
            ghost.insert(2, capacity: 2)  // refreshed: 3 is now the oldest
            ghost.insert(4, capacity: 2)
            #expect(!ghost.contains(3))
            let removed = ghost.remove(2)
            let removedAgain = ghost.remove(2)
            let removedExpired = ghost.remove(3)
            #expect(removed)
            #expect(!removedAgain)
            #expect(!removedExpired)
            #expect(ghost.count == 1)
            ghost.insert(5, capacity: 0)  // a capacity of 0 remembers nothing
            #expect(!ghost.contains(5))
            ghost.insert(6, capacity: 3)
            ghost.removeAll()
            #expect(ghost.count == 0)
            #expect(!ghost.contains(6))
        }

        @Test("the ghost queue purges forgotten fingerprints as it goes")
        func ghostQueuePurges() throws {
            var ghost = GhostQueue()
            for fingerprint in 0..<10_000 {
                ghost.insert(fingerprint, capacity: 10)
            }
            #expect(ghost.count == 10)
            #expect((9_990..<10_000).allSatisfy { ghost.contains($0) })
            #expect(!ghost.contains(9_989))
            #expect(ghost.storedCount < 100)
        }
    }
}
