import NIOCore

/// Where one connection stands in its request cycle, and when it is to be closed if nothing happens.
///
/// Invariant: every stage that waits on the client has a deadline — reading a head (the header
/// timeout, from the connection's opening or the first byte after an idle spell), reading a body
/// (the body timeout, renewed by each byte), waiting idle (the keep-alive timeout), and writing to
/// a client that does not read (the send timeout) — and only the server's own work has none.
struct ConnectionTimeline {
    enum Stage: Equatable {
        /// Open, and waiting for a request: new, or idle between requests.
        case waiting
        /// Some of a request's head has arrived.
        case readingHead
        /// A head has arrived; its body has not ended.
        case readingBody
        /// Every request read is being answered.
        case responding
    }

    private(set) var stage = Stage.waiting
    /// When the stage's time runs out; `nil` while responding.
    private var stageDeadline: NIODeadline?
    /// When a write the client has not taken must have gone; `nil` while the channel is writable.
    private var sendDeadline: NIODeadline?
    /// Requests whose head has arrived and whose response has not ended (more than one when pipelined).
    private var unanswered = 0
    private var readingRequest = false
    private let limits: ConnectionLimits

    /// A connection opened at `now`: its first request's head is due within the header timeout.
    init(limits: ConnectionLimits, openedAt now: NIODeadline) {
        self.limits = limits
        stageDeadline = now + Self.amount(limits.headerTimeout)
    }

    /// When the connection is to be closed unless something happens first.
    var deadline: NIODeadline? {
        switch (stageDeadline, sendDeadline) {
        case (let stage?, let send?): min(stage, send)
        case (let stage?, nil): stage
        case (nil, let send): send
        }
    }

    /// Whether the connection only waits for a request: closing it loses no work.
    var isIdle: Bool { stage == .waiting }

    /// Bytes arrived: the start of a head after an idle spell, or more of a body.
    mutating func bytesArrived(at now: NIODeadline) {
        switch stage {
        case .waiting:
            stage = .readingHead
            stageDeadline = now + Self.amount(limits.headerTimeout)
        case .readingBody:
            stageDeadline = now + Self.amount(limits.bodyTimeout)
        case .readingHead, .responding:
            break
        }
    }

    /// A request's head was read.
    mutating func headRead(at now: NIODeadline) {
        unanswered += 1
        readingRequest = true
        stage = .readingBody
        stageDeadline = now + Self.amount(limits.bodyTimeout)
    }

    /// A request's body ended: the server answers it.
    mutating func requestEnded() {
        readingRequest = false
        stage = .responding
        stageDeadline = nil
    }

    /// A response ended: the connection waits for the next request (or goes on with one read ahead).
    mutating func responseEnded(at now: NIODeadline) {
        unanswered = max(0, unanswered - 1)
        if readingRequest {
            stage = .readingBody
            stageDeadline = now + Self.amount(limits.bodyTimeout)
        } else if unanswered > 0 {
            stage = .responding
            stageDeadline = nil
        } else {
            stage = .waiting
            stageDeadline = now + Self.amount(limits.keepAliveTimeout)
        }
    }

    /// The channel stopped (or started again) taking writes.
    mutating func writabilityChanged(writable: Bool, at now: NIODeadline) {
        if writable {
            sendDeadline = nil
        } else if sendDeadline == nil {
            sendDeadline = now + Self.amount(limits.sendTimeout)
        }
    }

    /// Whether the connection's time ran out by `now`.
    func hasExpired(at now: NIODeadline) -> Bool {
        deadline.map { $0 <= now } ?? false
    }

    private static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
