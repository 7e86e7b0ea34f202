@testable import HoardCore

/// The next event of `events` that matches `predicate` (or `nil` if the stream ends first).
func nextEvent(
    in events: AsyncStream<HoardEvent>, where predicate: (HoardEvent) -> Bool
) async -> HoardEvent? {
    for await event in events where predicate(event) {
        return event
    }
    return nil
}
