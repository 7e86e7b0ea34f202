@testable import HoardServer
import NIOCore
import Testing

@Suite("ConnectionTimeline")
struct ConnectionTimelineTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static var limits: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.headerTimeout = .seconds(60)
        limits.bodyTimeout = .seconds(50)
        limits.keepAliveTimeout = .seconds(75)
        limits.sendTimeout = .seconds(40)
        return limits
    }

    static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    @Test("a new connection that sends nothing expires at the header timeout, and is idle until then")
    func silent() {
        let timeline = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        #expect(timeline.deadline == Self.at(60))
        #expect(timeline.isIdle)
        #expect(!timeline.hasExpired(at: Self.at(59)))
        #expect(timeline.hasExpired(at: Self.at(60)))
    }

    @Test("bytes of a head do not extend the header timeout (slowloris); a whole head starts the body timeout")
    func slowHead() {
        var timeline = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        timeline.bytesArrived(at: Self.at(10))
        #expect(timeline.deadline == Self.at(70))
        #expect(!timeline.isIdle)
        for second in stride(from: Int64(11), to: 70, by: 1) { timeline.bytesArrived(at: Self.at(second)) }
        #expect(timeline.deadline == Self.at(70))
        timeline.headRead(at: Self.at(69))
        #expect(timeline.deadline == Self.at(119))
    }

    @Test("each byte of a body renews the body timeout; while answering nothing expires; then the keep-alive timeout")
    func cycle() {
        var timeline = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        timeline.bytesArrived(at: Self.at(1))
        timeline.headRead(at: Self.at(1))
        timeline.bytesArrived(at: Self.at(30))
        #expect(timeline.deadline == Self.at(80))
        timeline.requestEnded()
        #expect(timeline.deadline == nil)
        #expect(!timeline.hasExpired(at: Self.at(100_000)))
        timeline.responseEnded(at: Self.at(200))
        #expect(timeline.isIdle)
        #expect(timeline.deadline == Self.at(275))
        // The next request's first byte starts its header timeout.
        timeline.bytesArrived(at: Self.at(210))
        #expect(timeline.deadline == Self.at(270))
        #expect(!timeline.isIdle)
    }

    @Test("a response ended before its request's body: the body timeout runs on; a pipelined request keeps it answering")
    func overlapping() {
        var timeline = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        timeline.headRead(at: Self.at(1))
        timeline.responseEnded(at: Self.at(2))
        #expect(timeline.stage == .readingBody && timeline.deadline == Self.at(52))
        timeline.requestEnded()
        timeline.headRead(at: Self.at(3))
        timeline.requestEnded()
        timeline.responseEnded(at: Self.at(4))
        #expect(timeline.stage == .waiting && timeline.deadline == Self.at(79))

        var pipelined = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        pipelined.headRead(at: Self.at(1))
        pipelined.requestEnded()
        pipelined.headRead(at: Self.at(1))
        pipelined.requestEnded()
        pipelined.responseEnded(at: Self.at(2))
        #expect(pipelined.stage == .responding && pipelined.deadline == nil)
        pipelined.responseEnded(at: Self.at(3))
        #expect(pipelined.stage == .waiting && pipelined.deadline == Self.at(78))
    }

    @Test("a client that stops taking a response expires at the send timeout, whatever the stage")
    func stalledReader() {
        var timeline = ConnectionTimeline(limits: Self.limits, openedAt: Self.start)
        timeline.headRead(at: Self.at(1))
        timeline.requestEnded()
        timeline.writabilityChanged(writable: false, at: Self.at(5))
        #expect(timeline.deadline == Self.at(45))
        // Still unwritable later: the first moment counts.
        timeline.writabilityChanged(writable: false, at: Self.at(20))
        #expect(timeline.deadline == Self.at(45))
        timeline.writabilityChanged(writable: true, at: Self.at(30))
        #expect(timeline.deadline == nil)
    }

    @Test("limits out of range are refused, naming the field")
    func validation() throws {
        try ConnectionLimits().validate()
        var limits = ConnectionLimits()
        limits.keepAliveTimeout = .zero
        #expect(throws: ServeError.self) { try limits.validate() }
        limits = ConnectionLimits()
        limits.maximumConnections = 0
        #expect(throws: ServeError.self) { try limits.validate() }
        #expect(ConnectionLimits.connections(allowedBy: 1024) == 768)
        #expect(ConnectionLimits.connections(allowedBy: 100) == 36)
        #expect(ConnectionLimits.connections(allowedBy: 1_048_576) == 1_048_576 - 4_096)
        #expect(ConnectionLimits.connections(allowedBy: 10) == 1)
    }
}
