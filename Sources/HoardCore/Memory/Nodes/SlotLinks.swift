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

/// Previous and next links for integer slots: intrusive doubly linked lists kept in one array.
///
/// Each slot can sit in at most one list of a given `SlotLinks` at a time; several ``SlotList``s
/// (an LFU policy's frequency buckets, S3-FIFO's small and main queues) share one storage. Linking,
/// unlinking and moving a slot are O(1) and allocate nothing once the array has grown to the
/// highest slot in use. A slot's two links sit side by side, so moving a slot touches one cache
/// line per slot involved: on a large cache each of those is a cache miss, and they are most of
/// the cost of an LRU hit.
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

    /// One slot's neighbours.
    private struct Link {
        var previous = SlotLinks.none
        var next = SlotLinks.none
    }

    private var links: [Link] = []

    /// The slot after `slot` in its list, if any.
    ///
    /// - Complexity: O(1).
    func slot(after slot: Int) -> Int? {
        let following = links[slot].next
        return following == Self.none ? nil : following
    }

    /// The slot before `slot` in its list, if any.
    ///
    /// - Complexity: O(1).
    func slot(before slot: Int) -> Int? {
        let preceding = links[slot].previous
        return preceding == Self.none ? nil : preceding
    }

    /// Links `slot`, which must not be in any list, at the front of `list`.
    ///
    /// - Complexity: Amortized O(1).
    mutating func pushFront(_ slot: Int, onto list: inout SlotList) {
        reserve(slot)
        links[slot] = Link(previous: Self.none, next: list.front)
        if list.front == Self.none {
            list.back = slot
        } else {
            links[list.front].previous = slot
        }
        list.front = slot
        list.count += 1
    }

    /// Links `slot`, which must not be in any list, right after `anchor`, which is in `list`.
    ///
    /// - Complexity: Amortized O(1).
    mutating func insert(_ slot: Int, after anchor: Int, in list: inout SlotList) {
        reserve(slot)
        let following = links[anchor].next
        links[slot] = Link(previous: anchor, next: following)
        links[anchor].next = slot
        if following == Self.none {
            list.back = slot
        } else {
            links[following].previous = slot
        }
        list.count += 1
    }

    /// Unlinks `slot`, which must be in `list`.
    ///
    /// - Complexity: O(1).
    mutating func remove(_ slot: Int, from list: inout SlotList) {
        unlink(slot, from: &list)
        links[slot] = Link()
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
        unlink(slot, from: &list)
        // `slot` was not the front, so the list still has one.
        links[slot] = Link(previous: Self.none, next: list.front)
        links[list.front].previous = slot
        list.front = slot
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
            slot = links[slot].next
        }
        return slots
    }

    /// Forgets every link. Lists built on this storage must be reset too.
    ///
    /// - Complexity: O(*n*), where *n* is the number of slots ever linked.
    mutating func removeAll() {
        links.removeAll()
    }

    /// Joins the neighbours of `slot`, which must be in `list`; leaves `slot`'s own links and the
    /// list's count as they were.
    private mutating func unlink(_ slot: Int, from list: inout SlotList) {
        let link = links[slot]
        if link.previous == Self.none {
            list.front = link.next
        } else {
            links[link.previous].next = link.next
        }
        if link.next == Self.none {
            list.back = link.previous
        } else {
            links[link.next].previous = link.previous
        }
    }

    /// Grows the array so that `slot` has links.
    private mutating func reserve(_ slot: Int) {
        precondition(slot >= 0, "SlotLinks slots are non-negative, got \(slot)")
        guard slot >= links.count else { return }
        links.append(contentsOf: repeatElement(Link(), count: slot + 1 - links.count))
    }
}
