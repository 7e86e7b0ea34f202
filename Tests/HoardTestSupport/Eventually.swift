/// Waits until `condition` holds, polling every `interval`; fails the wait after `timeout`.
///
/// The default is generous: it bounds a wait for tasks to reach a point, not how fast they get
/// there, and under ThreadSanitizer on two cores, synchronous tests can keep Swift Testing's
/// worker threads busy for tens of seconds (a 30 s limit once ran out there). Poll a server less
/// often than memory (`interval: .milliseconds(50)`).
///
/// - Returns: Whether the condition held in time.
@discardableResult
public func eventually(
    timeout: Duration = .seconds(180), interval: Duration = .milliseconds(2), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}
