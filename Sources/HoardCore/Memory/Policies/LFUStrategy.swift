/// Least frequently used: evicts the entry with the fewest uses, the least recently used among ties.
///
/// The O(1) LFU layout (Shah, Mitra and Matani, 2010): entries with the same use count share a
/// *bucket*, and the buckets form a list in increasing order of count. An insertion joins the
/// bucket for count 1 (created at the front when missing); a hit moves the entry to the bucket for
/// the next count, right after its current one (created when missing), and drops a bucket that
/// becomes empty. The victim is the back of the first bucket. Within a bucket, entries are ordered
/// by the moment they joined it, which is their last use, so ties go to the least recently used.
///
/// ```
/// buckets:  [count 1: d c]  ->  [count 2: b]  ->  [count 5: a]
/// victim:   c  (fewest uses; used before d)
/// ```
struct LFUStrategy: EvictionStrategy {
    /// The entries that share one use count.
    struct Bucket {
        /// How many times each member was inserted, hit or overwritten.
        var frequency: Int
        /// The members, most recent arrival at the front.
        var members = SlotList()
    }

    /// The buckets, addressed by slot.
    private var buckets = Slab<Bucket>()
    /// Links between bucket slots.
    private var bucketLinks = SlotLinks()
    /// The live buckets, lowest frequency at the front.
    private var bucketOrder = SlotList()
    /// Links between entry slots, one list per bucket.
    private var entryLinks = SlotLinks()
    /// The bucket slot of each entry slot.
    private var bucketOfEntry: [Int] = []
    /// The number of tracked entries.
    private(set) var count = 0

    mutating func insert(_ slot: Int, fingerprint: @autoclosure () -> Int) {
        let target: Int
        if let lowest = bucketOrder.first, buckets[lowest].frequency == 1 {
            target = lowest
        } else {
            target = buckets.insert(Bucket(frequency: 1))
            bucketLinks.pushFront(target, onto: &bucketOrder)
        }
        entryLinks.pushFront(slot, onto: &buckets[target].members)
        setBucket(target, ofEntry: slot)
        count += 1
    }

    mutating func access(_ slot: Int) {
        let current = bucketOfEntry[slot]
        let frequency = buckets[current].frequency + 1
        let target: Int
        if let following = bucketLinks.slot(after: current), buckets[following].frequency == frequency {
            target = following
        } else {
            target = buckets.insert(Bucket(frequency: frequency))
            bucketLinks.insert(target, after: current, in: &bucketOrder)
        }
        entryLinks.remove(slot, from: &buckets[current].members)
        entryLinks.pushFront(slot, onto: &buckets[target].members)
        bucketOfEntry[slot] = target
        removeBucketIfEmpty(current)
    }

    mutating func remove(_ slot: Int) {
        let bucket = bucketOfEntry[slot]
        entryLinks.remove(slot, from: &buckets[bucket].members)
        removeBucketIfEmpty(bucket)
        count -= 1
    }

    mutating func evict() -> Int? {
        guard let lowest = bucketOrder.first, let victim = buckets[lowest].members.last else {
            return nil
        }
        remove(victim)
        return victim
    }

    mutating func removeAll() {
        buckets.removeAll()
        bucketLinks.removeAll()
        bucketOrder = SlotList()
        entryLinks.removeAll()
        bucketOfEntry.removeAll()
        count = 0
    }

    /// The use count of the entry in `slot`. For tests.
    func frequency(ofEntry slot: Int) -> Int {
        buckets[bucketOfEntry[slot]].frequency
    }

    // MARK: - Private

    private mutating func setBucket(_ bucket: Int, ofEntry slot: Int) {
        if slot < bucketOfEntry.count {
            bucketOfEntry[slot] = bucket
        } else {
            bucketOfEntry.append(contentsOf: repeatElement(SlotLinks.none, count: slot - bucketOfEntry.count))
            bucketOfEntry.append(bucket)
        }
    }

    private mutating func removeBucketIfEmpty(_ bucket: Int) {
        guard buckets[bucket].members.isEmpty else { return }
        bucketLinks.remove(bucket, from: &bucketOrder)
        buckets.remove(at: bucket)
    }
}
