import Testing

@testable import HoardSystem

@Suite("MonotonicInstant")
struct MonotonicInstantTests {
    @Test("the clock never goes back, and moves")
    func neverGoesBack() {
        var previous = MonotonicInstant.now
        let first = previous
        // A loop long enough for a clock with nanosecond steps to move.
        for _ in 0..<100_000 {
            let next = MonotonicInstant.now
            #expect(next >= previous)
            previous = next
        }
        #expect(previous > first)
    }

    @Test("advancing adds whole nanoseconds; a negative interval adds none; the sum saturates")
    func advancing() {
        let start = MonotonicInstant(nanoseconds: 1_000)
        #expect(start.advanced(by: .milliseconds(20)).nanoseconds == 20_001_000)
        #expect(start.advanced(by: .nanoseconds(1)).nanoseconds == 1_001)
        #expect(start.advanced(by: .zero) == start)
        #expect(start.advanced(by: .seconds(-5)) == start)
        #expect(start.advanced(by: .nanoseconds(-1)) == start)
        let last = MonotonicInstant(nanoseconds: .max - 10)
        #expect(last.advanced(by: .seconds(1)).nanoseconds == .max)
        // An interval past a century counts as a century.
        #expect(start.advanced(by: .seconds(Int64.max)).nanoseconds == 1_000 + 100 * 365 * 86_400 * 1_000_000_000)
    }

    @Test("the duration to a later moment is the difference; to an earlier one, zero")
    func durations() {
        let start = MonotonicInstant(nanoseconds: 5_000)
        #expect(start.duration(to: MonotonicInstant(nanoseconds: 7_500)) == .nanoseconds(2_500))
        #expect(start.duration(to: start) == .zero)
        #expect(start.duration(to: MonotonicInstant(nanoseconds: 10)) == .zero)
        #expect(start.advanced(by: .milliseconds(3)).nanoseconds - start.nanoseconds == 3_000_000)
    }

    @Test("moments order by their nanoseconds")
    func ordering() {
        let moments = [9, 2, 5].map { MonotonicInstant(nanoseconds: $0) }
        #expect(moments.sorted().map(\.nanoseconds) == [2, 5, 9])
        #expect(MonotonicInstant(nanoseconds: 3) < MonotonicInstant(nanoseconds: 4))
        #expect(!(MonotonicInstant(nanoseconds: 4) < MonotonicInstant(nanoseconds: 4)))
    }
}
