/// S3-FIFO: a small probation FIFO, a main FIFO and a ghost FIFO of recently evicted keys.
///
/// From Yang et al., "FIFO queues are all you need for cache eviction" (SOSP '23), Algorithm 1,
/// and its reference implementation in libCacheSim:
///
/// - Each entry has a use counter, capped at 3, that a hit increments. Hits move nothing.
/// - A new entry enters the front of the *small* queue with counter 0, or the front of the *main*
///   queue when its key's fingerprint is in the *ghost* queue (it was evicted from the small queue
///   recently, so it is not a one-hit wonder).
/// - To evict, the strategy works on the small queue while it holds at least 10% of the entries,
///   and on the main queue otherwise:
///   - small queue: the entry at the back moves to the main queue (counter cleared) when it was hit
///     more than once, and the next one is examined; otherwise it is the victim and its fingerprint
///     enters the ghost queue.
///   - main queue: the entry at the back goes back to the front with its counter decremented when
///     the counter is not zero (a second chance, like CLOCK); otherwise it is the victim.
/// - The ghost queue remembers each fingerprint for as many ghost insertions as 90% of the entries
///   the cache holds at that eviction: a FIFO of that size.
///
/// Most new entries are used once, so they leave from the small queue quickly ("quick demotion")
/// and never push useful entries out of the main queue. Each eviction examines a bounded number
/// of entries on average, since each move clears or decrements a counter.
struct S3FIFOStrategy: EvictionStrategy {
    /// The queue an entry is in.
    enum Queue {
        case small
        case main
    }

    /// What the strategy remembers about one entry.
    struct EntryState {
        var fingerprint: Int
        var frequency: UInt8
        var queue: Queue
    }

    /// The highest value of an entry's use counter.
    static let maximumFrequency: UInt8 = 3
    /// An entry at the back of the small queue moves to the main queue when its counter exceeds this.
    static let promotionFrequency: UInt8 = 1
    /// The small queue's share of the entries, in percent.
    static let smallQueuePercentage = 10
    /// The ghost queue's capacity as a share of the entries, in percent.
    static let ghostQueuePercentage = 90

    private var links = SlotLinks()
    /// The probation queue, newest at the front.
    private var small = SlotList()
    /// The main queue, newest (or most recently reinserted) at the front.
    private var main = SlotList()
    private var ghost = GhostQueue()
    /// Per-slot state; meaningful for tracked slots only.
    private var states: [EntryState] = []

    var count: Int { small.count + main.count }

    mutating func insert(_ slot: Int, fingerprint: @autoclosure () -> Int) {
        let fingerprint = fingerprint()
        let queue: Queue
        if ghost.remove(fingerprint) {
            queue = .main
            links.pushFront(slot, onto: &main)
        } else {
            queue = .small
            links.pushFront(slot, onto: &small)
        }
        let state = EntryState(fingerprint: fingerprint, frequency: 0, queue: queue)
        if slot < states.count {
            states[slot] = state
        } else {
            let filler = EntryState(fingerprint: 0, frequency: 0, queue: .small)
            states.append(contentsOf: repeatElement(filler, count: slot - states.count))
            states.append(state)
        }
    }

    mutating func access(_ slot: Int) {
        if states[slot].frequency < Self.maximumFrequency {
            states[slot].frequency += 1
        }
    }

    mutating func remove(_ slot: Int) {
        switch states[slot].queue {
        case .small:
            links.remove(slot, from: &small)
        case .main:
            links.remove(slot, from: &main)
        }
    }

    mutating func evict() -> Int? {
        if small.count * 100 >= count * Self.smallQueuePercentage, let victim = evictFromSmall() {
            return victim
        }
        return evictFromMain()
    }

    mutating func removeAll() {
        links.removeAll()
        small = SlotList()
        main = SlotList()
        ghost.removeAll()
        states.removeAll()
    }

    /// The slots of the small and main queues, front to back, and the ghost queue's size. For tests.
    var layout: (small: [Int], main: [Int], ghostCount: Int) {
        (links.slots(in: small), links.slots(in: main), ghost.count)
    }

    /// The use counter of the entry in `slot`. For tests.
    func frequency(ofEntry slot: Int) -> Int {
        Int(states[slot].frequency)
    }

    // MARK: - Private

    /// Moves hot entries from the back of the small queue to the main queue until one is cold,
    /// then evicts that one into the ghost queue.
    ///
    /// - Returns: The victim, or `nil` when every entry of the small queue moved to the main queue.
    private mutating func evictFromSmall() -> Int? {
        while let tail = links.popBack(of: &small) {
            if states[tail].frequency > Self.promotionFrequency {
                states[tail].frequency = 0
                states[tail].queue = .main
                links.pushFront(tail, onto: &main)
            } else {
                let capacity = count * Self.ghostQueuePercentage / 100
                ghost.insert(states[tail].fingerprint, capacity: max(capacity, 1))
                return tail
            }
        }
        return nil
    }

    /// Gives entries at the back of the main queue a second chance while their counter is not
    /// zero, then evicts the first whose counter is.
    ///
    /// - Returns: The victim, or `nil` when the main queue is empty.
    private mutating func evictFromMain() -> Int? {
        while let tail = main.last {
            if states[tail].frequency > 0 {
                states[tail].frequency -= 1
                links.moveToFront(tail, in: &main)
            } else {
                links.remove(tail, from: &main)
                return tail
            }
        }
        return nil
    }
}
