import HoardSystem
import Logging
import NIOCore
import Synchronization

/// The server's open client connections, and the decision at the limit.
///
/// Invariant: at most ``maximum`` connections are registered; at the limit a new connection
/// displaces the one that has waited longest for a request, or is refused when every connection
/// is busy.
final class ConnectionRegistry: Sendable {
    /// One open connection, and since when it has waited for a request.
    final class Entry: Sendable {
        let channel: any Channel
        /// `NIODeadline.now().uptimeNanoseconds` when it last began to wait for a request, or -1
        /// while a request is being read or answered. Written by its event loop, read under the
        /// registry's lock from any.
        private let waitingSince: Atomic<Int64>

        init(channel: any Channel, waitingSince: NIODeadline) {
            self.channel = channel
            self.waitingSince = Atomic(Int64(clamping: waitingSince.uptimeNanoseconds))
        }

        /// Marks the connection busy (`nil`) or waiting since `instant`.
        func markWaiting(since instant: NIODeadline?) {
            waitingSince.store(instant.map { Int64(clamping: $0.uptimeNanoseconds) } ?? -1, ordering: .relaxed)
        }

        var waitingSinceNanoseconds: Int64? {
            let value = waitingSince.load(ordering: .relaxed)
            return value >= 0 ? value : nil
        }
    }

    enum Admission {
        /// Registered; `displaced`, if any, was waiting longest and must be closed.
        case admitted(displaced: Entry?)
        /// Every connection is busy: the new one must be closed.
        case refused
    }

    /// The most connections registered at once.
    let maximum: Int
    private let logger: Logger
    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        /// When the limit was last reported in the log (once a minute at most).
        var lastReport: NIODeadline?
    }
    private let state = Lock(State())

    init(maximum: Int, logger: Logger) {
        precondition(maximum >= 1, "ConnectionRegistry needs room for a connection")
        self.maximum = maximum
        self.logger = logger
    }

    /// Connections registered now.
    var count: Int { state.withLock { $0.open.count } }

    /// Registers `entry`, displacing the longest-waiting connection at the limit.
    ///
    /// - Complexity: O(1) below the limit; O(n) at it.
    func admit(_ entry: Entry) -> Admission {
        let (admission, report) = state.withLock { state -> (Admission, Bool) in
            if state.open.count < maximum {
                state.open[ObjectIdentifier(entry)] = entry
                return (.admitted(displaced: nil), false)
            }
            let now = NIODeadline.now()
            let report = state.lastReport.map { now - $0 >= .seconds(60) } ?? true
            if report { state.lastReport = now }
            var oldest: (key: ObjectIdentifier, entry: Entry, since: Int64)?
            for (key, candidate) in state.open {
                guard let since = candidate.waitingSinceNanoseconds, since < oldest?.since ?? .max else { continue }
                oldest = (key, candidate, since)
            }
            guard let oldest else { return (.refused, report) }
            state.open.removeValue(forKey: oldest.key)
            state.open[ObjectIdentifier(entry)] = entry
            return (.admitted(displaced: oldest.entry), report)
        }
        if report {
            logger.warning(
                "at the connection limit: a new connection displaces the longest idle one, or is closed when none is idle",
                metadata: ["limit": .stringConvertible(maximum)])
        }
        return admission
    }

    /// Forgets `entry` (its connection closed).
    func remove(_ entry: Entry) {
        state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(entry)) }
    }
}
