import Foundation
import Hoard
import HoardSystem

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Lock<Date>

    init(_ start: Date = Date(timeIntervalSinceReferenceDate: 700_000_000)) {
        current = Lock(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// A closure for `DiskCache.Configuration.now`.
    var closure: @Sendable () -> Date { { self.now } }
}
