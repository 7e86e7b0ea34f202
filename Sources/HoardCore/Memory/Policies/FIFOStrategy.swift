/// First in, first out: evicts the entry that was inserted earliest, whatever its hits.
///
/// One list ordered by insertion: insertions go to the front, victims come from the back, and hits
/// change nothing. Overwriting a key keeps its place.
struct FIFOStrategy: EvictionStrategy {
    private var links = SlotLinks()
    /// Newest at the front.
    private var arrivals = SlotList()

    var count: Int { arrivals.count }

    mutating func insert(_ slot: Int, fingerprint: @autoclosure () -> Int) {
        links.pushFront(slot, onto: &arrivals)
    }

    mutating func access(_ slot: Int) {}

    mutating func remove(_ slot: Int) {
        links.remove(slot, from: &arrivals)
    }

    mutating func evict() -> Int? {
        links.popBack(of: &arrivals)
    }

    mutating func removeAll() {
        links.removeAll()
        arrivals = SlotList()
    }
}
