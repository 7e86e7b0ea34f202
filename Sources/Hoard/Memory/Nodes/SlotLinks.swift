/// The two ends and the length of one doubly linked list threaded through ``SlotLinks``.
///
/// The list does not own its links: they live in the ``SlotLinks`` it was built with, and every
/// operation on the list goes through that storage. The *front* is where new slots usually enter;
/// the *back* is where the eviction policies take their victims.
struct SlotList {
    /// The first slot, or ``SlotLinks/none``.
    fileprivate(set) var front = SlotLinks.none
    /// The last slot, or ``SlotLinks/none``.
    fileprivate(set) var back = SlotLinks.none
    /// The number of slots in the list.
    fileprivate(set) var count = 0

    /// Whether the list holds no slot.
    var isEmpty: Bool { count == 0 }
    /// The first slot, if any.
    var first: Int? { front == SlotLinks.none ? nil : front }
    /// The last slot, if any.
    var last: Int? { back == SlotLinks.none ? nil : back }
}

/// Previous and next links for integer slots: intrusive doubly linked lists kept in two arrays.
///
/// Each slot can sit in at most one list of a given `SlotLinks` at a time; several ``SlotList``s
/// (an LFU policy's frequency buckets, S3-FIFO's small and main queues) share one storage. Linking,
/// unlinking and moving a slot are O(1) and allocate nothing once the arrays have grown to the
/// highest slot in use.
///
/// ```swift
/// var links = SlotLinks()
/// var recent = SlotList()
/// links.pushFront(0, onto: &recent)
/// links.pushFront(1, onto: &recent)     // 1, 0
/// links.moveToFront(0, in: &recent)     // 0, 1
/// recent.last                           // 1: the least recently used
/// ```
struct SlotLinks {
    /// The link value that means "no slot".
    static let none = -1

    private var previous: [Int] = []
    private var next: [Int] = []

    /// The slot after `slot` in its list, if any.
    ///
    /// - Complexity: O(1).
    func slot(after slot: Int) -> Int? {
        let following = next[slot]
        return following == Self.none ? nil : following
    }

    /// The slot before `slot` in its list, if any.
    ///
    /// - Complexity: O(1).
    func slot(before slot: Int) -> Int? {
        let preceding = previous[slot]
        return preceding == Self.none ? nil : preceding
    }

    /// Links `slot`, which must not be in any list, at the front of `list`.
    ///
    /// - Complexity: Amortized O(1).
    mutating func pushFront(_ slot: Int, onto list: inout SlotList) {
        reserve(slot)
        previous[slot] = Self.none
        next[slot] = list.front
        if list.front == Self.none {
            list.back = slot
        } else {
            previous[list.front] = slot
        }
        list.front = slot
        list.count += 1
    }

    /// Links `slot`, which must not be in any list, right after `anchor`, which is in `list`.
    ///
    /// - Complexity: Amortized O(1).
    mutating func insert(_ slot: Int, after anchor: Int, in list: inout SlotList) {
        reserve(slot)
        let following = next[anchor]
        previous[slot] = anchor
        next[slot] = following
        next[anchor] = slot
        if following == Self.none {
            list.back = slot
        } else {
            previous[following] = slot
        }
        list.count += 1
    }

    /// Unlinks `slot`, which must be in `list`.
    ///
    /// - Complexity: O(1).
    mutating func remove(_ slot: Int, from list: inout SlotList) {
        let preceding = previous[slot]
        let following = next[slot]
        if preceding == Self.none {
            list.front = following
        } else {
            next[preceding] = following
        }
        if following == Self.none {
            list.back = preceding
        } else {
            previous[following] = preceding
        }
        previous[slot] = Self.none
        next[slot] = Self.none
        list.count -= 1
    }

    /// Unlinks and returns the last slot of `list`, if any.
    ///
    /// - Complexity: O(1).
    mutating func popBack(of list: inout SlotList) -> Int? {
        guard let last = list.last else { return nil }
        remove(last, from: &list)
        return last
    }

    /// Moves `slot`, which must be in `list`, to the front of `list`.
    ///
    /// - Complexity: O(1).
    mutating func moveToFront(_ slot: Int, in list: inout SlotList) {
        guard list.front != slot else { return }
        remove(slot, from: &list)
        pushFront(slot, onto: &list)
    }

    /// The slots of `list`, front to back.
    ///
    /// - Complexity: O(*n*), where *n* is the length of the list. For tests and diagnostics.
    func slots(in list: SlotList) -> [Int] {
        var slots: [Int] = []
        slots.reserveCapacity(list.count)
        var slot = list.front
        while slot != Self.none {
            slots.append(slot)
            slot = next[slot]
        }
        return slots
    }

    /// Forgets every link. Lists built on this storage must be reset too.
    ///
    /// - Complexity: O(*n*), where *n* is the number of slots ever linked.
    mutating func removeAll() {
        previous.removeAll()
        next.removeAll()
    }

    /// Grows the arrays so that `slot` has links.
    private mutating func reserve(_ slot: Int) {
        precondition(slot >= 0, "SlotLinks slots are non-negative, got \(slot)")
        guard slot >= previous.count else { return }
        let missing = slot + 1 - previous.count
        previous.append(contentsOf: repeatElement(Self.none, count: missing))
        next.append(contentsOf: repeatElement(Self.none, count: missing))
    }
}
