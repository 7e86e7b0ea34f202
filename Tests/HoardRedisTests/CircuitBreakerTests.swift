import Testing

@testable import HoardRedis

/// The circuit breaker on its own, on instants the test chooses: no sleeping.
@Suite("CircuitBreaker")
struct CircuitBreakerTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func breaker() -> CircuitBreaker {
        CircuitBreaker(threshold: 3, initialBackOff: .milliseconds(100), maximumBackOff: .milliseconds(400))
    }

    @Test("opens after the threshold of consecutive failures, returning the back-off once, then refuses")
    func opensAtThreshold() {
        let breaker = breaker()
        #expect(breaker.recordFailure(now: at(0)) == nil)
        #expect(breaker.recordFailure(now: at(0)) == nil)
        #expect(!breaker.isOpen && breaker.permission(now: at(0)) == .allowed, "below the threshold")
        #expect(breaker.recordFailure(now: at(0)) == .milliseconds(100), "the third failure opens it")
        #expect(breaker.isOpen)
        #expect(breaker.recordFailure(now: at(10)) == nil, "the opening is reported once")
        #expect(breaker.permission(now: at(10)) == .refused)
        #expect(breaker.permission(now: at(99)) == .refused)
    }

    @Test("a success between failures resets the count")
    func successResetsCount() {
        let breaker = breaker()
        _ = breaker.recordFailure(now: at(0))
        _ = breaker.recordFailure(now: at(0))
        #expect(breaker.recordSuccess() == false, "closing a closed breaker is not a change")
        #expect(breaker.recordFailure(now: at(0)) == nil)
        #expect(breaker.recordFailure(now: at(0)) == nil)
        #expect(!breaker.isOpen && breaker.permission(now: at(0)) == .allowed)
        #expect(breaker.recordFailure(now: at(0)) == .milliseconds(100))
    }

    @Test("after the back-off, exactly one caller is told to probe")
    func oneProbe() async {
        let breaker = breaker()
        for _ in 0..<3 { _ = breaker.recordFailure(now: at(0)) }
        #expect(breaker.permission(now: at(100)) == .probe)
        #expect(breaker.permission(now: at(100)) == .refused, "a second caller while the probe runs")
        #expect(breaker.permission(now: at(5_000)) == .refused, "still one probe, however late")
        #expect(breaker.isOpen, "probing is still open")

        let other = self.breaker()
        for _ in 0..<3 { _ = other.recordFailure(now: at(0)) }
        let probeTime = at(200)
        let permissions = await withTaskGroup(of: CircuitBreaker.Permission.self) { group in
            for _ in 0..<50 { group.addTask { other.permission(now: probeTime) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(permissions.filter { $0 == .probe }.count == 1, "50 concurrent callers: one probe")
        #expect(permissions.filter { $0 == .refused }.count == 49)
    }

    @Test("each failed probe doubles the back-off, up to the maximum")
    func failedProbesDoubleBackOff() {
        let breaker = breaker()
        for _ in 0..<3 { _ = breaker.recordFailure(now: at(0)) }
        var now = 0
        // 100 ms, then 200, 400, and 400 again (the maximum).
        for expected in [100, 200, 400, 400, 400] {
            #expect(breaker.permission(now: at(now + expected - 1)) == .refused, "before \(expected) ms")
            #expect(breaker.permission(now: at(now + expected)) == .probe, "at \(expected) ms")
            now += expected
            breaker.recordProbeFailure(now: at(now))
            #expect(breaker.isOpen)
        }
    }

    @Test("a successful probe closes the breaker (reported once) and resets the back-off")
    func successCloses() {
        let breaker = breaker()
        for _ in 0..<3 { _ = breaker.recordFailure(now: at(0)) }
        #expect(breaker.permission(now: at(100)) == .probe)
        breaker.recordProbeFailure(now: at(100))  // back-off 200
        #expect(breaker.permission(now: at(300)) == .probe)
        #expect(breaker.recordSuccess() == true, "this closed it")
        #expect(breaker.recordSuccess() == false, "reported once")
        #expect(!breaker.isOpen)
        #expect(breaker.permission(now: at(300)) == .allowed)
        #expect(breaker.permission(now: at(300)) == .allowed, "no probe once closed")
        // It takes the threshold again to open, and the back-off starts over.
        #expect(breaker.recordFailure(now: at(400)) == nil)
        #expect(breaker.recordFailure(now: at(400)) == nil)
        #expect(breaker.recordFailure(now: at(400)) == .milliseconds(100))
        #expect(breaker.permission(now: at(499)) == .refused)
        #expect(breaker.permission(now: at(500)) == .probe)
    }

    @Test("while open, a late reply to an earlier command neither closes it nor counts as a failed probe")
    func lateRepliesWhileOpen() {
        let breaker = breaker()
        for _ in 0..<3 { _ = breaker.recordFailure(now: at(0)) }
        breaker.recordCommandSuccess()
        #expect(breaker.isOpen, "a success of a command sent before it opened")
        #expect(breaker.permission(now: at(100)) == .probe)
        #expect(breaker.recordFailure(now: at(100)) == nil, "a late failure while the probe runs")
        #expect(breaker.permission(now: at(150)) == .refused, "the probe is still the only one")
        #expect(breaker.recordSuccess() == true, "the probe's success closes it")
    }

    @Test("a threshold of 1 opens on the first failure")
    func thresholdOne() {
        let breaker = CircuitBreaker(threshold: 1, initialBackOff: .seconds(1), maximumBackOff: .seconds(1))
        #expect(breaker.recordFailure(now: at(0)) == .seconds(1))
        #expect(breaker.permission(now: at(999)) == .refused)
        #expect(breaker.permission(now: at(1_000)) == .probe)
        breaker.recordProbeFailure(now: at(1_000))
        #expect(breaker.permission(now: at(1_999)) == .refused, "capped at the maximum of 1 s")
        #expect(breaker.permission(now: at(2_000)) == .probe)
    }
}
