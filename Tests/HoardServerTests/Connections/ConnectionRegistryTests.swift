@testable import HoardServer
import Logging
import NIOCore
import NIOEmbedded
import Testing

@Suite("ConnectionRegistry")
struct ConnectionRegistryTests {
    /// An entry over a channel that is closed at once (an open `EmbeddedChannel` would outlive
    /// the test under LeakSanitizer); the registry never touches its channel but to close it.
    static func entry(waitingSince seconds: Int64?) -> ConnectionRegistry.Entry {
        let channel = EmbeddedChannel()
        _ = try? channel.finish()
        let entry = ConnectionRegistry.Entry(channel: channel, waitingSince: .uptimeNanoseconds(0))
        entry.markWaiting(since: seconds.map { .uptimeNanoseconds(UInt64($0) * 1_000_000_000) })
        return entry
    }

    @Test("below the limit every connection is admitted; at it the longest idle one is displaced")
    func displacement() throws {
        let registry = ConnectionRegistry(maximum: 3, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let busy = Self.entry(waitingSince: nil)
        let idleLong = Self.entry(waitingSince: 5)
        let idleShort = Self.entry(waitingSince: 9)
        for entry in [busy, idleLong, idleShort] {
            guard case .admitted(nil) = registry.admit(entry) else { Issue.record("refused below the limit"); return }
        }
        guard case .admitted(let displaced?) = registry.admit(Self.entry(waitingSince: 10)) else {
            Issue.record("nothing displaced at the limit")
            return
        }
        #expect(displaced === idleLong)
        #expect(registry.count == 3)
        // Removing what was displaced already changes nothing.
        registry.remove(idleLong)
        #expect(registry.count == 3)
    }

    @Test("at the limit with every connection busy the new one is refused; a closed one makes room")
    func refusal() {
        let registry = ConnectionRegistry(maximum: 2, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let first = Self.entry(waitingSince: nil)
        let second = Self.entry(waitingSince: 3)
        _ = registry.admit(first)
        _ = registry.admit(second)
        second.markWaiting(since: nil)
        guard case .refused = registry.admit(Self.entry(waitingSince: 1)) else {
            Issue.record("admitted past the limit with every connection busy")
            return
        }
        registry.remove(first)
        guard case .admitted(nil) = registry.admit(Self.entry(waitingSince: 1)) else {
            Issue.record("refused below the limit")
            return
        }
        #expect(registry.count == 2)
    }
}
