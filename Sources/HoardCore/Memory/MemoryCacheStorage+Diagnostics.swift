extension MemoryCacheStorage {
    /// Every entry's key and value, expired or not, without touching the policy. For tests.
    ///
    /// - Complexity: O(*n*).
    var contents: [Key: Value] {
        slotOfKey.mapValues { entries[$0].value }
    }

    /// How the index, the slab and the strategy disagree, or which limit is exceeded; empty when
    /// all is well. For tests.
    ///
    /// - Complexity: O(*n*).
    func invariantViolations() -> [String] {
        var violations: [String] = []
        if slotOfKey.count != entries.count {
            violations.append("the index has \(slotOfKey.count) keys but the slab \(entries.count) entries")
        }
        if strategy.count != entries.count {
            violations.append("the strategy tracks \(strategy.count) of \(entries.count) entries")
        }
        if count > countLimit {
            violations.append("count \(count) is above the limit \(countLimit)")
        }
        let sum = slotOfKey.values.reduce(0) { $0 + entries[$1].cost }
        if sum != totalCost {
            violations.append("totalCost is \(totalCost) but the costs add up to \(sum)")
        }
        if totalCost > costLimit {
            violations.append("totalCost \(totalCost) is above the limit \(costLimit)")
        }
        return violations
    }
}
