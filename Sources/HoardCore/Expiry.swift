import Foundation
import HoardSystem

/// When a cached value stops being valid.
///
/// Every cache tier accepts an expiry per entry. An entry whose expiration date has come (the
/// current time is equal to or later than it) is never returned: the tier treats it as a miss and
/// removes it when it sees it.
///
/// ```swift
/// try cache.setValue(token, forKey: "session", expiry: .seconds(15 * 60))   // 15 minutes from now
/// try cache.setValue(banner, forKey: "sale", expiry: .date(endOfSale))      // a fixed moment
/// try cache.setValue(logo, forKey: "logo", expiry: .never)
/// ```
public enum Expiry: Sendable, Hashable {
    /// The entry never expires; it leaves the cache only when it is removed or evicted.
    case never
    /// The entry expires this many seconds after it is stored. Zero or less expires it at once.
    case seconds(TimeInterval)
    /// The entry expires at this moment. A moment in the past expires it at once.
    case date(Date)

    /// The moment an entry stored at `now` expires.
    ///
    /// ```swift
    /// let stored = Date(timeIntervalSince1970: 1_000)
    /// Expiry.seconds(60).expirationDate(from: stored)    // 1970-01-01 00:17:40 +0000
    /// Expiry.never.expirationDate(from: stored)          // nil
    /// ```
    ///
    /// - Parameter now: The moment the entry is stored.
    /// - Returns: The expiration date, or `nil` for ``never``.
    /// - Complexity: O(1).
    public func expirationDate(from now: Date) -> Date? {
        switch self {
        case .never:
            nil
        case .seconds(let interval):
            now.addingTimeInterval(interval)
        case .date(let date):
            date
        }
    }
}

extension Date {
    /// Whether an entry with this expiration date has expired at `now`.
    ///
    /// An entry expires at its expiration date, not just after it.
    @inlinable
    func hasExpired(at now: Date) -> Bool {
        now >= self
    }
}

extension Expiry {
    /// Checks that the expiry can be computed: `.seconds` and `.date` must be finite.
    ///
    /// - Parameter field: The parameter or property, for the error.
    /// - Throws: ``InvalidValueError``.
    @usableFromInline
    func validate(_ field: String) throws(InvalidValueError) {
        switch self {
        case .never:
            return
        case .seconds(let interval):
            guard interval.isFinite else {
                throw InvalidValueError(field: field, value: ".seconds(\(interval))", requirement: "a finite number of seconds")
            }
        case .date(let date):
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw InvalidValueError(field: field, value: ".date(\(date))", requirement: "a finite date")
            }
        }
    }
}
