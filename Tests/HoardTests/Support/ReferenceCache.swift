@testable import HoardCore

/// A deliberately simple model of ``MemoryCache`` for `Int` keys and values: plain arrays and
/// dictionaries, linear scans, every policy spelled out the obvious way. The property tests run the
/// same random operations on both and compare their contents after each one.
///
/// Arrays of keys are ordered oldest (or least recently used) first: the victim end is index 0.
struct ReferenceCache {
    let policy: EvictionPolicy
    let countLimit: Int
    let costLimit: Int

    private(set) var values: [Int: Int] = [:]
    private var costs: [Int: Int] = [:]
    private(set) var totalCost = 0
    private(set) var evictions = 0

    // LRU and FIFO
    private var order: [Int] = []
    // LFU
    private var uses: [Int: Int] = [:]
    private var lastUse: [Int: Int] = [:]
    private var tick = 0
    // S3-FIFO
    private var small: [Int] = []
    private var main: [Int] = []
    /// Keys evicted from `small`, with the ghost insertion count at which each is forgotten.
    private var ghost: [Int: Int] = [:]
    private var ghostInsertions = 0
    private var frequency: [Int: Int] = [:]

    init(policy: EvictionPolicy, countLimit: Int, costLimit: Int) {
        self.policy = policy
        self.countLimit = countLimit
        self.costLimit = costLimit
    }

    mutating func value(forKey key: Int) -> Int? {
        guard let value = values[key] else { return nil }
        use(key)
        return value
    }

    mutating func setValue(_ value: Int, forKey key: Int, cost: Int) {
        guard cost <= costLimit, countLimit > 0 else {
            removeValue(forKey: key)
            return
        }
        if values[key] != nil {
            use(key)
            var replaced = true
            while totalCost - costs[key, default: 0] + cost > costLimit {
                let victim = evict()
                if victim == key {
                    replaced = false
                    break
                }
            }
            if replaced {
                totalCost += cost - costs[key, default: 0]
                values[key] = value
                costs[key] = cost
                return
            }
        }
        while values.count >= countLimit || totalCost + cost > costLimit {
            evict()
        }
        values[key] = value
        costs[key] = cost
        totalCost += cost
        track(key)
    }

    mutating func removeValue(forKey key: Int) {
        guard values[key] != nil else { return }
        untrack(key)
        drop(key)
    }

    mutating func removeAll() {
        for key in values.keys {
            untrack(key)
        }
        values = [:]
        costs = [:]
        totalCost = 0
        ghost = [:]
    }

    // MARK: - Policies

    private mutating func track(_ key: Int) {
        switch policy {
        case .lru, .fifo:
            order.append(key)
        case .lfu:
            uses[key] = 1
            tick += 1
            lastUse[key] = tick
        case .s3fifo:
            if let deadline = ghost.removeValue(forKey: key), deadline > ghostInsertions {
                main.append(key)
            } else {
                small.append(key)
            }
            frequency[key] = 0
        }
    }

    private mutating func use(_ key: Int) {
        switch policy {
        case .lru:
            order.removeAll { $0 == key }
            order.append(key)
        case .fifo:
            break
        case .lfu:
            uses[key, default: 0] += 1
            tick += 1
            lastUse[key] = tick
        case .s3fifo:
            frequency[key] = min(frequency[key, default: 0] + 1, 3)
        }
    }

    private mutating func untrack(_ key: Int) {
        order.removeAll { $0 == key }
        uses[key] = nil
        lastUse[key] = nil
        small.removeAll { $0 == key }
        main.removeAll { $0 == key }
        frequency[key] = nil
    }

    /// Chooses a victim, forgets it, and returns it.
    @discardableResult
    private mutating func evict() -> Int {
        let victim = chooseVictim()
        untrack(victim)
        drop(victim)
        evictions += 1
        return victim
    }

    private mutating func chooseVictim() -> Int {
        switch policy {
        case .lru, .fifo:
            return order[0]
        case .lfu:
            let candidates = values.keys.map { (key: $0, uses: uses[$0, default: 0], lastUse: lastUse[$0, default: 0]) }
            let victim = candidates.min { ($0.uses, $0.lastUse) < ($1.uses, $1.lastUse) }
            return victim?.key ?? -1
        case .s3fifo:
            if small.count * 10 >= small.count + main.count {
                while !small.isEmpty {
                    let tail = small.removeFirst()
                    if frequency[tail, default: 0] > 1 {
                        frequency[tail] = 0
                        main.append(tail)
                    } else {
                        // Remembered for this and the next capacity - 1 ghost insertions.
                        let capacity = max((small.count + main.count) * 90 / 100, 1)
                        ghostInsertions += 1
                        ghost[tail] = ghostInsertions + capacity
                        small.insert(tail, at: 0)  // untrack removes it again
                        return tail
                    }
                }
            }
            while true {
                let tail = main.removeFirst()
                if frequency[tail, default: 0] > 0 {
                    frequency[tail, default: 0] -= 1
                    main.append(tail)
                } else {
                    main.insert(tail, at: 0)  // untrack removes it again
                    return tail
                }
            }
        }
    }

    private mutating func drop(_ key: Int) {
        totalCost -= costs[key, default: 0]
        values[key] = nil
        costs[key] = nil
    }
}
