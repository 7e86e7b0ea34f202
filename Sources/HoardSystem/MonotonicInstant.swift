#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A moment of the system's monotonic clock, in nanoseconds: what a path taken on every read
/// compares to see whether an interval has passed.
///
/// `ContinuousClock.Instant` does the same, but its layout is the standard library's own: held in
/// an optional or a dictionary, each copy goes through its type metadata. This one is a plain
/// integer.
///
/// A path that checks often keeps the moment a check is next due, so that it compares two
/// integers and converts no `Duration`:
///
/// ```swift
/// var nextCheck = MonotonicInstant.now.advanced(by: .seconds(1))
/// if MonotonicInstant.now >= nextCheck { check(); nextCheck = .now.advanced(by: .seconds(1)) }
/// ```
package struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds since an arbitrary moment (the system's boot, on Linux).
    package let nanoseconds: UInt64

    /// The current moment.
    @inlinable
    package static var now: MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(nanoseconds: UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec))
    }

    /// The moment `nanoseconds` after the clock's zero.
    @inlinable
    package init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// The moment `interval` after this one: a negative interval counts as none, and a sum past
    /// the largest moment is the largest moment.
    @inlinable
    package func advanced(by interval: Duration) -> MonotonicInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(Self.nanoseconds(in: interval))
        return MonotonicInstant(nanoseconds: overflow ? .max : sum)
    }

    /// The time from this moment to `later`; zero when `later` is not later.
    @inlinable
    package func duration(to later: MonotonicInstant) -> Duration {
        later.nanoseconds > nanoseconds ? .nanoseconds(Int64(clamping: later.nanoseconds - nanoseconds)) : .zero
    }

    // All four comparisons, so that none goes through `Comparable`'s generic defaults.
    @inlinable
    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    @inlinable
    package static func <= (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds <= rhs.nanoseconds
    }

    @inlinable
    package static func > (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds > rhs.nanoseconds
    }

    @inlinable
    package static func >= (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds >= rhs.nanoseconds
    }

    /// `interval` in whole nanoseconds, from 0 (for a negative interval) up to a century.
    @inlinable
    static func nanoseconds(in interval: Duration) -> UInt64 {
        let (seconds, attoseconds) = interval.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let century: Int64 = 100 * 365 * 86_400
        return UInt64(min(seconds, century)) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
