import Foundation
import Hoard
import HoardRESP
import HoardRedis
import RedisTestSupport
import Testing

/// A cache with a Redis tier behind its disk, against servers that fail: killed, paused, full,
/// holding garbage, answering nonsense, refusing the password, speaking TLS with a certificate
/// the client may not trust.
///
/// Whatever the server does, the cache keeps working on its own tiers: no call throws or hangs,
/// no read returns another key's or a damaged value, the tier counts what it dropped, and a
/// server that comes back is used again. Deadlines are short (well under a second); limits on
/// waits are generous, for a loaded machine.
@Suite("RedisTier faults")
struct RedisFaultTests {
    @Test(
        "a server killed mid-batch: every call returns, no value is wrong, and a restart is used again",
        .requiresRedisServer)
    func killedMidBatch() async throws {
        let taskCount = 50
        let rounds = 4
        try await withRedisServer { server in
            let writerLogs = FaultLog()
            // The killed server fails at once; the deadline only has to outlast the stalls of a loaded
            // 2-core machine (tens of seconds), so that the live server never misses one.
            let configuration = try Self.configuration(port: server.port, timeout: .seconds(30))
            try await Self.withMachine(configuration, logs: writerLogs) { writer in
                try await Self.withMachine(configuration) { reader in
                    let earlier = (0..<taskCount).map { "before \($0)" }
                    for key in earlier { try await writer.hoard.store(Self.value(for: key), forKey: key) }
                    #expect(writer.tier.statistics.stores == taskCount, "the batch starts with a working server")

                    // Each task stores, reads back, and has the other machine read (from Redis) what
                    // it stored the round before; the server is killed a third of the way in.
                    let timings = Timings()
                    let killAfterCalls = taskCount * rounds
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<taskCount {
                            group.addTask {
                                for round in 0..<rounds {
                                    let key = "during \(index) \(round)"
                                    let shared = round == 0 ? "before \(index)" : "during \(index) \(round - 1)"
                                    try await timings.time {
                                        try await writer.hoard.store(Self.value(for: key), forKey: key)
                                    }
                                    let own = try await timings.time {
                                        try await writer.hoard.retrieve(String.self, forKey: key)
                                    }
                                    let other = try await timings.time {
                                        try await reader.hoard.retrieve(String.self, forKey: shared)
                                    }
                                    #expect(own == Self.value(for: key))
                                    #expect(
                                        other == nil || other == Self.value(for: shared), "\(shared): \(other ?? "")")
                                    if timings.count >= killAfterCalls, server.processIdentifier != 0 { server.kill() }
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    #expect(timings.count == 3 * taskCount * rounds)
                    #expect(timings.slowest < Self.callLimit, "slowest call: \(timings.slowest)")
                    #expect(server.processIdentifier == 0, "the server was killed during the batch")
                    #expect(reader.tier.statistics.hits > 0, "the batch read from Redis before the kill")

                    let statistics = writer.tier.statistics
                    #expect(statistics.breakerOpenings == 1, "\(statistics)")
                    #expect(statistics.droppedWrites > 0, "\(statistics)")
                    #expect(writerLogs.count("Redis server failing") == 1, "the opening is logged once")
                    let during = (0..<taskCount).flatMap { index in (0..<rounds).map { "during \(index) \($0)" } }
                    try await Self.expectLocalValues(writer, keys: earlier + during)

                    try await server.restart()
                    let recovered = try await Self.storeUntilShared(writer, on: server)
                    #expect(recovered != nil, "a store reaches the restarted server")
                    #expect(writerLogs.count("Redis server reachable again") == 1)
                    if let recovered {
                        var entry: CacheEntry<String>?
                        let deadline = ContinuousClock.now + Self.recoveryLimit
                        while entry == nil, ContinuousClock.now < deadline {
                            entry = try await reader.hoard.entry(String.self, forKey: recovered)
                            if entry == nil { try await Task.sleep(for: .milliseconds(50)) }
                        }
                        #expect(entry?.source == "redis")
                        #expect(entry?.value == Self.value(for: recovered))
                    }
                }
            }
        }
    }

    @Test(
        "a paused server (SIGSTOP): calls return in time, the breaker opens once and closes after SIGCONT",
        .requiresRedisServer)
    func pausedAndResumed() async throws {
        try await withRedisServer { server in
            let logs = FaultLog()
            let configuration = try Self.configuration(port: server.port, timeout: .milliseconds(400))
            try await Self.withMachine(configuration, logs: logs) { machine in
                try await machine.hoard.store(Self.value(for: "warm"), forKey: "warm")
                server.pause()
                let timings = Timings()
                let concurrent = (0..<20).map { "paused \($0)" }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for key in concurrent {
                        group.addTask { try await Self.roundTrip(machine, key: key, timings: timings) }
                    }
                    try await group.waitForAll()
                }
                // Past the back-off, so that probes fail too: they must not log another opening.
                var sequential: [String] = []
                for index in 0..<6 {
                    try await Task.sleep(for: .milliseconds(150))
                    sequential.append("still paused \(index)")
                    try await Self.roundTrip(machine, key: "still paused \(index)", timings: timings)
                }
                let whilePaused = machine.tier.statistics
                let openingsLogged = logs.count("Redis server failing")
                server.resume()

                #expect(timings.slowest < Self.callLimit, "slowest call: \(timings.slowest)")
                #expect(whilePaused.breakerOpenings == 1, "\(whilePaused)")
                #expect(openingsLogged == 1, "the opening is logged once")
                #expect(whilePaused.errors >= configuration.failureThreshold, "\(whilePaused)")
                #expect(whilePaused.skippedCommands > 0, "\(whilePaused)")
                #expect(whilePaused.droppedWrites > 0, "\(whilePaused)")
                #expect(whilePaused.hits == 0, "\(whilePaused)")

                let recovered = try await Self.storeUntilShared(machine, on: server)
                #expect(recovered != nil, "a store reaches the resumed server")
                #expect(logs.count("Redis server reachable again") == 1, "the closing is logged once")
                #expect(machine.tier.statistics.breakerOpenings == 1)
                try await Self.expectLocalValues(machine, keys: ["warm"] + concurrent + sequential)
            }
        }
    }

    @Test(
        "a full server (maxmemory, noeviction): stores never throw, the disk keeps all, drops are counted",
        .requiresRedisServer)
    func fullServer() async throws {
        // 2 MiB, not 1: an idle redis-server 7 already uses about 0.9 MiB, so with 1 MiB not one
        // 64 KiB value fits and there is nothing to read back. With 2 MiB about a dozen do.
        let count = 40
        let options = RedisServer.Options(extraArguments: ["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"])
        try await withRedisServer(options) { server in
            let logs = FaultLog()
            // The full server refuses at once; the deadline only has to outlast the stalls of a loaded
            // 2-core machine (tens of seconds), so that a missed one never opens the breaker.
            let configuration = try Self.configuration(port: server.port, timeout: .seconds(30))
            try await Self.withMachine(configuration, logs: logs) { writer in
                for index in 0..<count {
                    try await writer.hoard.store(Self.largeValue(index), forKey: "large \(index)")
                }
                let statistics = writer.tier.statistics
                #expect(
                    statistics.stores + statistics.droppedWrites == count, "each write stored or dropped: \(statistics)"
                )
                #expect(statistics.stores > 0 && statistics.stores < count, "some fit, not all: \(statistics)")
                #expect(statistics.droppedWrites > 0, "\(statistics)")
                #expect(statistics.errors > 0, "\(statistics)")
                #expect(logs.all.contains { $0.text.contains("out of memory") }, "the server's refusal is logged")
                #expect(statistics.breakerOpenings == 0, "a full server still serves reads: \(statistics)")
                #expect(
                    logs.all.filter { $0.message == "Redis refused a command" && $0.level == .warning }.count == 1,
                    "the same refusal is a warning once")

                writer.hoard.clearMemory()
                for index in 0..<count {
                    let entry = try await writer.hoard.entry(Data.self, forKey: "large \(index)")
                    #expect(entry?.value == Self.largeValue(index), "large \(index)")
                    #expect(entry?.source == .disk)
                }
                #expect(try writer.hoard.diskEntries().count == count)

                // What did reach the server reads back right; the rest is a miss.
                try await Self.withMachine(configuration) { reader in
                    for index in 0..<count {
                        let value = try await reader.hoard.retrieve(Data.self, forKey: "large \(index)")
                        #expect(value == nil || value == Self.largeValue(index), "large \(index)")
                    }
                    #expect(reader.tier.statistics.hits == statistics.stores, "\(reader.tier.statistics)")
                }
            }
        }
    }
}
