/// Least recently used: evicts the entry that has gone longest without a hit or an overwrite.
///
/// One list ordered by last use: insertions and hits move an entry to the front, victims come
/// from the back.
struct LRUStrategy: EvictionStrategy {
    private var links = SlotLinks()
    /// Most recently used at the front.
    private var recency = SlotList()

    var count: Int { recency.count }

    mutating func insert(_ slot: Int, fingerprint: @autoclosure () -> Int) {
        links.pushFront(slot, onto: &recency)
    }

    mutating func access(_ slot: Int) {
        links.moveToFront(slot, in: &recency)
    }

    mutating func remove(_ slot: Int) {
        links.remove(slot, from: &recency)
    }

    mutating func evict() -> Int? {
        links.popBack(of: &recency)
    }

    mutating func removeAll() {
        links.removeAll()
        recency = SlotList()
    }
}
