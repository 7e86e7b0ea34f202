import Foundation
import Synchronization

/// A clock that moves only when a test says so, for expiry tests without sleeping.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        current = Mutex(start)
    }

    /// The current time.
    var now: Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward.
    func advance(by interval: TimeInterval) {
        current.withLock { $0.addTimeInterval(interval) }
    }
}
