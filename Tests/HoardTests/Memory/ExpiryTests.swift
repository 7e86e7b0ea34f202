import Foundation
import Testing

@testable import HoardCore

extension MemoryTests {
    @Suite("Expiry")
    struct ExpiryTests {
        static let start = Date(timeIntervalSinceReferenceDate: 1_000)

        @Test("computes expiration dates")
        func expirationDates() throws {
            #expect(Expiry.never.expirationDate(from: Self.start) == nil)
            #expect(Expiry.seconds(60).expirationDate(from: Self.start) == Self.start.addingTimeInterval(60))
            #expect(Expiry.seconds(-5).expirationDate(from: Self.start) == Self.start.addingTimeInterval(-5))
            let fixed = Date(timeIntervalSinceReferenceDate: 5)
            #expect(Expiry.date(fixed).expirationDate(from: Self.start) == fixed)
        }

        @Test("an entry expires at its expiration date, not after")
        func expiresAtTheDate() throws {
            #expect(Self.start.hasExpired(at: Self.start))
            #expect(!Self.start.hasExpired(at: Self.start.addingTimeInterval(-0.001)))
        }

        @Test("a memory cache never returns an expired entry and removes it when seen")
        func memoryCacheExpiry() throws {
            let clock = TestClock(Self.start)
            let cache = try MemoryCache<String, Int>(configuration: .init(now: { clock.now }))
            try cache.setValue(1, forKey: "short", cost: 5, expiry: .seconds(10))
            try cache.setValue(2, forKey: "fixed", cost: 5, expiry: .date(Self.start.addingTimeInterval(20)))
            try cache.setValue(3, forKey: "forever", cost: 5)

            clock.advance(by: 9.999)
            #expect(cache.value(forKey: "short") == 1)

            clock.advance(by: 0.001)
            #expect(cache.count == 3)
            #expect(cache.value(forKey: "short") == nil)
            #expect(cache.count == 2)
            #expect(cache.totalCost == 10)
            #expect(cache.containsValue(forKey: "fixed"))

            clock.advance(by: 10)
            #expect(!cache.containsValue(forKey: "fixed"))
            #expect(cache.count == 1)

            clock.advance(by: 1_000_000)
            #expect(cache.value(forKey: "forever") == 3)
            let statistics = cache.statistics
            #expect(statistics.expirations == 2)
            #expect(statistics.hits == 2)
            #expect(statistics.misses == 1)
        }

        @Test("removeValue does not return an expired value")
        func removeExpired() throws {
            let clock = TestClock(Self.start)
            let cache = try MemoryCache<String, Int>(configuration: .init(now: { clock.now }))
            try cache.setValue(1, forKey: "a", expiry: .seconds(1))
            clock.advance(by: 1)
            #expect(cache.removeValue(forKey: "a") == nil)
            #expect(cache.count == 0)
        }

        @Test("a value that has already expired is not stored and removes the old one")
        func alreadyExpired() throws {
            let clock = TestClock(Self.start)
            let cache = try MemoryCache<String, Int>(configuration: .init(now: { clock.now }))
            try cache.setValue(1, forKey: "a")
            try cache.setValue(2, forKey: "a", expiry: .seconds(0))
            #expect(cache.count == 0)
            try cache.setValue(3, forKey: "b", expiry: .date(Self.start.addingTimeInterval(-1)))
            #expect(cache.count == 0)
            #expect(cache.value(forKey: "b") == nil)
        }

        @Test("the default expiry applies to values stored without one, and an overwrite resets it")
        func defaultExpiry() throws {
            let clock = TestClock(Self.start)
            let cache = try MemoryCache<String, Int>(configuration: .init(defaultExpiry: .seconds(60), now: { clock.now }))
            cache["a"] = 1
            try cache.setValue(2, forKey: "b", expiry: .never)
            clock.advance(by: 59)
            cache["a"] = 10  // expires 60 s from now
            clock.advance(by: 59)
            #expect(cache["a"] == 10)
            #expect(cache["b"] == 2)
            clock.advance(by: 1)
            #expect(cache["a"] == nil)
            #expect(cache["b"] == 2)
        }

        @Test("removeExpiredValues sweeps every expired entry at once")
        func sweep() throws {
            let clock = TestClock(Self.start)
            let cache = try MemoryCache<Int, Int>(configuration: .init(now: { clock.now }))
            for key in 0..<10 {
                try cache.setValue(key, forKey: key, cost: 1, expiry: key.isMultiple(of: 2) ? .seconds(5) : .never)
            }
            clock.advance(by: 5)
            #expect(cache.removeExpiredValues() == 5)
            #expect(cache.count == 5)
            #expect(cache.totalCost == 5)
            #expect(cache.statistics.expirations == 5)
            let violations = cache.withStorage { $0.invariantViolations() }
            #expect(violations == [])
        }
    }
}
