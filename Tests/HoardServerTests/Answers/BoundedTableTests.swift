@testable import HoardServer
import Testing

@Suite("BoundedTable")
struct BoundedTableTests {
    @Test("values by key; replacing a key's value counts its new cost once")
    func values() {
        let table = BoundedTable<String, Int>(byteLimit: 100)
        table.setValue(1, forKey: "a", cost: 10)
        table.setValue(2, forKey: "b", cost: 20)
        #expect(table.value(forKey: "a") == 1 && table.value(forKey: "b") == 2 && table.value(forKey: "c") == nil)
        table.setValue(3, forKey: "a", cost: 30)
        #expect(table.value(forKey: "a") == 3 && table.count == 2 && table.byteCount == 50)
    }

    @Test("the costs held never pass the limit: an entry that does not fit empties the table first; one over the limit, or of a negative cost, is not held", arguments: [1, 7, 33])
    func bounded(cost: Int) {
        let table = BoundedTable<Int, Int>(byteLimit: 100)
        for key in 0..<1_000 {
            table.setValue(key, forKey: key, cost: cost)
            #expect(table.byteCount <= table.byteLimit && table.byteCount == table.count * cost)
            #expect(table.value(forKey: key) == key)
        }
        // Growing a held entry past the limit empties the table but keeps that entry.
        table.setValue(-1, forKey: 999, cost: 100)
        #expect(table.count == 1 && table.byteCount == 100 && table.value(forKey: 999) == -1)
        table.setValue(0, forKey: 5_000, cost: 101)
        table.setValue(0, forKey: 5_001, cost: -1)
        #expect(table.value(forKey: 5_000) == nil && table.value(forKey: 5_001) == nil && table.count == 1)
        #expect(BoundedTable<Int, Int>(byteLimit: -5).byteLimit == 0)
    }
}
