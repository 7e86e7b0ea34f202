import HoardTestSupport
import Testing

@testable import HoardCore

extension MemoryTests {
    /// Random operation sequences, replayed on ``MemoryCache`` and on ``ReferenceCache``.
    ///
    /// After every operation: the limits hold, the internal invariants hold, and the cache holds
    /// exactly the keys, values and total cost that the model holds (all four policies are
    /// deterministic, so the model predicts every eviction).
    @Suite("MemoryCache properties")
    struct MemoryCachePropertyTests {
        struct Scenario: CustomTestStringConvertible, Sendable {
            var policy: EvictionPolicy
            var seed: UInt64
            var testDescription: String { "\(policy), seed \(seed)" }
        }

        static let scenarios: [Scenario] = EvictionPolicy.allCases.flatMap { policy in
            (1...9).map { Scenario(policy: policy, seed: $0) }
        }

        @Test("never exceeds its limits and matches the reference model", arguments: scenarios)
        func matchesModel(_ scenario: Scenario) throws {
            var generator = SplitMix64(seed: scenario.seed)
            // A third of the scenarios are bound by count only, a third by cost only, a third by both.
            let boundByCount = scenario.seed % 3 != 1
            let boundByCost = scenario.seed % 3 != 0
            let countLimit = boundByCount ? Int.random(in: 1...24, using: &generator) : .max
            let costLimit = boundByCost ? Int.random(in: 20...200, using: &generator) : .max
            let keySpace = Int.random(in: 8...80, using: &generator)
            let cache = try MemoryCache<Int, Int>(
                configuration: .init(countLimit: countLimit, costLimit: costLimit, evictionPolicy: scenario.policy)
            )
            var model = ReferenceCache(policy: scenario.policy, countLimit: countLimit, costLimit: costLimit)

            for step in 0..<4_000 {
                let key = Int.random(in: 0..<keySpace, using: &generator)
                let operation: String
                switch Int.random(in: 0..<100, using: &generator) {
                case 0..<55:
                    operation = "get \(key)"
                    let actual = cache.value(forKey: key)
                    let expected = model.value(forKey: key)
                    #expect(actual == expected, "step \(step): \(operation)")
                case 55..<92:
                    let value = Int.random(in: 0..<1_000, using: &generator)
                    var cost = boundByCost ? Int.random(in: 0...(costLimit / 3), using: &generator) : 0
                    if boundByCost, Int.random(in: 0..<40, using: &generator) == 0 {
                        cost = costLimit + 1  // never fits
                    }
                    operation = "set \(key) cost \(cost)"
                    try cache.setValue(value, forKey: key, cost: cost)
                    model.setValue(value, forKey: key, cost: cost)
                case 92..<99:
                    operation = "remove \(key)"
                    cache.removeValue(forKey: key)
                    model.removeValue(forKey: key)
                default:
                    operation = "removeAll"
                    cache.removeAll()
                    model.removeAll()
                }

                let (contents, totalCost, violations) = cache.withStorage {
                    ($0.contents, $0.totalCost, $0.invariantViolations())
                }
                #expect(contents.count <= countLimit, "step \(step): \(operation)")
                #expect(totalCost <= costLimit, "step \(step): \(operation)")
                #expect(violations == [], "step \(step): \(operation)")
                #expect(contents == model.values, "step \(step): \(operation)")
                #expect(totalCost == model.totalCost, "step \(step): \(operation)")
                if contents != model.values {
                    return  // one diverging step is enough; the rest would only repeat it
                }
            }
            #expect(cache.statistics.evictions == model.evictions)
            #expect(cache.count == model.values.count)
        }
    }
}
