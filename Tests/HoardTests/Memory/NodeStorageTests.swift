import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("Memory cache node storage")
    struct NodeStorageTests {
        @Test("a slab reuses freed slots")
        func slab() throws {
            var slab = Slab<String>()
            let a = slab.insert("a")
            let b = slab.insert("b")
            #expect((a, b) == (0, 1))
            #expect(slab.remove(at: a) == "a")
            #expect(slab.insert("c") == a)
            #expect(slab[a] == "c")
            slab[b] = "B"
            #expect(slab[b] == "B")
            #expect(slab.count == 2)
            slab.removeAll()
            #expect(slab.count == 0)
            #expect(slab.insert("d") == 0)
        }

        @Test("slot lists link, unlink and move in both directions")
        func lists() throws {
            var links = SlotLinks()
            var list = SlotList()
            #expect(list.isEmpty && list.first == nil && list.last == nil)
            links.pushFront(3, onto: &list)
            links.pushFront(7, onto: &list)
            links.insert(5, after: 7, in: &list)
            links.insert(9, after: 3, in: &list)
            #expect(links.slots(in: list) == [7, 5, 3, 9])
            #expect(list.first == 7 && list.last == 9 && list.count == 4)
            #expect(links.slot(after: 5) == 3)
            #expect(links.slot(before: 5) == 7)
            #expect(links.slot(before: 7) == nil)
            #expect(links.slot(after: 9) == nil)

            links.moveToFront(3, in: &list)
            links.moveToFront(3, in: &list)
            #expect(links.slots(in: list) == [3, 7, 5, 9])
            links.remove(5, from: &list)
            #expect(links.popBack(of: &list) == 9)
            #expect(links.slots(in: list) == [3, 7])

            // A second list shares the storage.
            var other = SlotList()
            links.pushFront(9, onto: &other)
            links.pushFront(5, onto: &other)
            #expect(links.slots(in: other) == [5, 9])
            #expect(links.slots(in: list) == [3, 7])

            #expect(links.popBack(of: &list) == 7)
            #expect(links.popBack(of: &list) == 3)
            #expect(links.popBack(of: &list) == nil)
            #expect(list.isEmpty)
        }
    }
}
