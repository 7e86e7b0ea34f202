/// Elements addressed by stable integer slots; removing an element frees its slot for reuse.
///
/// The memory cache keeps its entries in a slab and refers to them by slot everywhere else (in the
/// key index and in the eviction lists of ``SlotLinks``), so no entry is ever a class instance and
/// no list node is ever allocated on its own. A slot stays valid until its element is removed.
///
/// ```swift
/// var slab = Slab<String>()
/// let a = slab.insert("a")        // 0
/// let b = slab.insert("b")        // 1
/// slab.remove(at: a)
/// let c = slab.insert("c")        // 0 again: the freed slot is reused
/// ```
///
/// The slab is `@usableFromInline` so that ``MemoryCache``'s inlinable operations specialize it.
@usableFromInline
struct Slab<Element> {
    /// The elements by slot; `nil` marks a free slot.
    @usableFromInline var elements: [Element?]
    /// Free slots, most recently freed last.
    @usableFromInline var freeSlots: [Int]

    /// The number of occupied slots.
    @usableFromInline var count: Int

    /// Creates an empty slab.
    @inlinable
    init() {
        elements = []
        freeSlots = []
        count = 0
    }

    /// Stores `element` in a free slot, or in a new one when none is free.
    ///
    /// - Returns: The slot that now holds `element`.
    /// - Complexity: Amortized O(1).
    @inlinable
    mutating func insert(_ element: Element) -> Int {
        count += 1
        if let slot = freeSlots.popLast() {
            elements[slot] = element
            return slot
        }
        elements.append(element)
        return elements.count - 1
    }

    /// Removes the element in `slot` and frees the slot.
    ///
    /// - Precondition: `slot` is occupied.
    /// - Returns: The removed element.
    /// - Complexity: Amortized O(1).
    @inlinable
    @discardableResult
    mutating func remove(at slot: Int) -> Element {
        guard let element = elements[slot] else {
            preconditionFailure("Slab slot \(slot) is free; it was removed twice or never inserted")
        }
        elements[slot] = nil
        freeSlots.append(slot)
        count -= 1
        return element
    }

    /// The element in an occupied slot.
    ///
    /// - Precondition: `slot` is occupied.
    /// - Complexity: O(1).
    @inlinable
    subscript(slot: Int) -> Element {
        get {
            guard let element = elements[slot] else {
                preconditionFailure("Slab slot \(slot) is free")
            }
            return element
        }
        set {
            precondition(elements[slot] != nil, "Slab slot \(slot) is free; insert before assigning")
            elements[slot] = newValue
        }
    }

    /// Removes every element and forgets every slot.
    ///
    /// - Complexity: O(*n*), where *n* is the number of slots ever used.
    mutating func removeAll() {
        elements.removeAll()
        freeSlots.removeAll()
        count = 0
    }
}
