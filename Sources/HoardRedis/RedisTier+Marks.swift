import Foundation
import HoardCore
import HoardRESP

extension RedisTier {
    /// The two cache-wide marks.
    enum Mark: String, CaseIterable {
        case expiredBefore = "expired-before"
        case removedBefore = "removed-before"
    }

    /// What this process has read of the marks.
    struct MarkState {
        /// The latest marks, as taken (never ahead of this machine's clock when read).
        var marks: SharedCacheMarks?
        /// When the servers were last asked.
        var readAt: ContinuousClock.Instant?
        /// The last mark ignored for lying too far ahead (logged once).
        var ignored: Date?
        /// Each mark last read ahead of the clock, and the moment it was taken at.
        var early: [Mark: (read: Date, taken: Date)] = [:]
    }

    /// Moves a mark forward only: two machines publishing at once leave the later moment.
    static let advanceMark = RedisScript(
        """
        local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
        if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
        return 1
        """)

    /// Both marks in one round trip (a missing one is a null).
    static let readMarks = RedisScript(
        """
        return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
        """)

    /// The latest marks on any server, read at most once per ``Configuration/markRefreshInterval``;
    /// `nil` when no server has answered yet.
    public func sharedMarks() async -> SharedCacheMarks? {
        let now = ContinuousClock.now
        let (cached, isDue) = marks.withLock { state -> (SharedCacheMarks?, Bool) in
            let isDue = state.readAt.map { now - $0 >= configuration.markRefreshInterval } ?? true
            if isDue { state.readAt = now }
            return (state.marks, isDue)
        }
        guard isDue else { return cached }
        var merged: SharedCacheMarks?
        let keys = Mark.allCases.map { RESPArgument(keyPrefix + $0.rawValue) }
        let date = configuration.now()
        for shard in shards {
            guard let reply = await shard.run("EVALSHA", { try await $0.eval(Self.readMarks, keys: keys) }) else {
                continue
            }
            var read = merged ?? SharedCacheMarks()
            if case .array(let values?) = reply, values.count == 2 {
                let expired = plausibleMark(values[0], .expiredBefore, now: date)
                let removed = plausibleMark(values[1], .removedBefore, now: date)
                read.expiredBefore = Self.later(read.expiredBefore, expired)
                read.removedBefore = Self.later(read.removedBefore, removed)
            }
            merged = read
        }
        guard let merged else { return cached }
        // Marks only move forward: a read answered before this process published a later mark
        // (publishMark runs meanwhile) must not undo it.
        return marks.withLock { state in
            var latest = state.marks ?? SharedCacheMarks()
            latest.expiredBefore = Self.later(latest.expiredBefore, merged.expiredBefore)
            latest.removedBefore = Self.later(latest.removedBefore, merged.removedBefore)
            state.marks = latest
            return latest
        }
    }

    /// Publishes an ``Hoard/expireAll()`` at `date` on every reachable server.
    public func publishExpiration(before date: Date) async {
        await publishMark(.expiredBefore, date: date)
    }

    /// Moves `mark` to `date` on every reachable server, and in this process's copy.
    func publishMark(_ mark: Mark, date: Date) async {
        guard let milliseconds = Self.unixMilliseconds(date, rounding: .down) else { return }
        marks.withLock { state in
            var updated = state.marks ?? SharedCacheMarks()
            switch mark {
            case .expiredBefore: updated.expiredBefore = Self.later(updated.expiredBefore, date)
            case .removedBefore: updated.removedBefore = Self.later(updated.removedBefore, date)
            }
            state.marks = updated
        }
        let key = RESPArgument(keyPrefix + mark.rawValue)
        for shard in shards {
            _ = await shard.run("EVALSHA") { client in
                try await client.eval(Self.advanceMark, keys: [key], arguments: [RESPArgument(milliseconds)])
            }
        }
    }

    /// How far ahead of this machine's clock a mark read from a server may lie: clocks a few
    /// minutes apart are common. Further, it is taken for another machine's wrong clock or a
    /// damaged key, and ignored (logged once).
    static let markFutureTolerance: TimeInterval = 300

    /// The date of a mark read from a server, or `nil` when it is missing, foreign, or more than
    /// ``markFutureTolerance`` ahead of `now`.
    ///
    /// A mark ahead of `now` within the tolerance comes from a machine whose clock runs fast: the
    /// removal or expiry it records happened no later than now, so it is taken at `now`, the
    /// first time it is read, and at that same moment on every later read: it never covers a value
    /// stored after it was seen.
    private func plausibleMark(_ value: RESPValue, _ mark: Mark, now: Date) -> Date? {
        guard let date = Self.date(value) else { return nil }
        let early = marks.withLock { state in state.early[mark] }
        if let early, early.read == date { return early.taken }
        guard date > now else { return date }
        guard date.timeIntervalSince(now) > Self.markFutureTolerance else {
            marks.withLock { state in state.early[mark] = (date, now) }
            return now
        }
        let isNew = marks.withLock { state in
            defer { state.ignored = date }
            return state.ignored != date
        }
        if isNew {
            configuration.logger.warning(
                "Shared cache mark lies more than five minutes ahead of this machine's clock; ignored",
                metadata: ["mark": .string(mark.rawValue), "date": .string("\(date)"), "now": .string("\(now)")])
        }
        return nil
    }

    /// A mark's value: Unix milliseconds in decimal, or `nil` for a missing or foreign value.
    private static func date(_ value: RESPValue) -> Date? {
        guard case .bulkString(let bytes?) = value,
            let milliseconds = Int64(String(decoding: bytes, as: UTF8.self)), milliseconds > 0
        else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func later(_ first: Date?, _ second: Date?) -> Date? {
        switch (first, second) {
        case (let first?, let second?): max(first, second)
        case (let date?, nil), (nil, let date?): date
        case (nil, nil): nil
        }
    }
}
