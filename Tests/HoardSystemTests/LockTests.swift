import Testing

@testable import HoardSystem

@Suite("Lock and small helpers")
struct LockTests {
    /// A lock shared by tasks, as the library's classes hold theirs.
    private final class Counter: Sendable {
        let count = Lock(0)
    }

    @Test("increments from many tasks at once all land")
    func concurrentIncrements() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counter.count.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.count.withLock { $0 } == 80_000)
    }

    @Test("a body's error leaves the lock usable and the value as the body left it")
    func throwingBody() {
        struct Stop: Error {}
        let lock = Lock([1])
        #expect(throws: Stop.self) {
            try lock.withLock { value throws(Stop) in
                value.append(2)
                throw Stop()
            }
        }
        #expect(lock.withLock { $0 } == [1, 2])
    }

    @Test("zero padding adds zeros in front, and never shortens")
    func zeroPadding() {
        #expect("7".zeroPadded(toLength: 3) == "007")
        #expect("1234".zeroPadded(toLength: 3) == "1234")
        #expect("".zeroPadded(toLength: 2) == "00")
    }
}
