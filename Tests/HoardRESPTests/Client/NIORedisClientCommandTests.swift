import Foundation
import HoardRESP
import RedisTestSupport
import Testing

@Suite("NIORedisClient commands", .requiresRedisServer)
struct NIORedisClientCommandTests {
    @Test("PING, DBSIZE and INFO")
    func pingSizeAndInfo() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                try await client.ping()
                #expect(try await client.databaseSize() == 0)
                try await client.set("a", to: [1])
                #expect(try await client.databaseSize() == 1)
                let info = try await client.info(section: "server")
                #expect(info.contains("redis_version:"))
                #expect(info.contains("tcp_port:\(server.port)"))
            }
        }
    }

    @Test("SET then GET returns the same bytes", arguments: [0, 1024, 1 << 20])
    func binaryRoundTrip(_ size: Int) async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                let value = everyByteValue(count: size)
                let key = RESPArgument([0, 255, 13, 10] + Array("key".utf8))
                #expect(try await client.set(key, to: value))
                #expect((try await client.get(key)) == value)
                #expect((try await client.get("missing")) == nil)
            }
        }
    }

    @Test("SET NX stores only when the key is absent")
    func setOnlyIfAbsent() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                #expect(try await client.set("lock", to: [1], onlyIfAbsent: true))
                #expect((try await client.set("lock", to: [2], onlyIfAbsent: true)) == false)
                #expect((try await client.get("lock")) == [1])
                #expect(try await client.set("lock", to: [3]))
                #expect((try await client.get("lock")) == [3])
            }
        }
    }

    @Test("PX and PXAT expire keys; PTTL reports the time left")
    func expiry() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                // Generous margins: tests run in parallel on a loaded machine.
                let expiry = now + 2_000
                try await client.set("soon", to: [1], expiration: .at(unixTimeMilliseconds: expiry))
                try await client.set("later", to: [2], expiration: .after(milliseconds: 600_000))
                try await client.set("forever", to: [3])
                guard case .milliseconds(let remaining) = try await client.timeToLive("later") else {
                    Issue.record("no time to live on a key set with PX")
                    return
                }
                #expect(remaining > 500_000 && remaining <= 600_000)
                #expect(try await client.timeToLive("forever") == .noExpiration)
                #expect(try await client.timeToLive("absent") == .keyMissing)
                if case .milliseconds(let soon) = try await client.timeToLive("soon") {
                    #expect(soon <= 2_000)
                } else {
                    #expect(Int64(Date().timeIntervalSince1970 * 1000) >= expiry, "gone before its time")
                }
                let wait = expiry + 300 - Int64(Date().timeIntervalSince1970 * 1000)
                if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
                #expect(try await client.get("soon") == nil)
                #expect(try await client.timeToLive("soon") == .keyMissing)
                // A time already past deletes at once.
                try await client.set("past", to: [4], expiration: .at(unixTimeMilliseconds: now - 1000))
                #expect((try await client.get("past")) == nil)
            }
        }
    }

    @Test("refuses expirations below 1 and a SCAN count below 1 before sending them")
    func refusesBadArguments() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                for expiration in [RedisExpiration.after(milliseconds: 0), .at(unixTimeMilliseconds: -5)] {
                    let error = await expectFailure { try await client.set("k", to: [1], expiration: expiration) }
                    guard case .invalidValue(let invalid)? = error else {
                        Issue.record("unexpected \(String(describing: error))")
                        continue
                    }
                    #expect(invalid.field == "SET expiration")
                }
                let error = await expectFailure { try await client.scan(cursor: 0, count: 0) }
                guard case .invalidValue? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(try await client.databaseSize() == 0)
                let empty = await expectFailure { try await client.send([]) }
                guard case .invalidValue? = empty else {
                    Issue.record("unexpected \(String(describing: empty))")
                    return
                }
            }
        }
    }

    @Test("DEL and UNLINK count the keys that existed")
    func deleteAndUnlink() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                for key in ["a", "b", "c", "d"] { try await client.set(RESPArgument(key), to: [1]) }
                #expect((try await client.delete(["a", "b", "zz"])) == 2)
                #expect((try await client.unlink(["c", "d", "zz"])) == 2)
                #expect((try await client.delete([])) == 0)
                #expect(try await client.databaseSize() == 0)
            }
        }
    }

    @Test("EVAL compare-and-delete deletes only on a match; EVALSHA falls back to EVAL on NOSCRIPT")
    func compareAndDelete() async throws {
        let source =
            "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end"
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                try await client.set("lock", to: Array("token-1".utf8))
                #expect((try await client.eval(source, keys: ["lock"], arguments: ["token-2"])) == .integer(0))
                #expect((try await client.get("lock")) == Array("token-1".utf8))
                #expect((try await client.eval(source, keys: ["lock"], arguments: ["token-1"])) == .integer(1))
                #expect((try await client.get("lock")) == nil)

                let script = RedisScript(source)
                #expect(try server.command(["SCRIPT", "LOAD", source]) == script.sha1)
                _ = try server.command(["SCRIPT", "FLUSH"])
                let missing = await expectFailure {
                    try await client.evalSHA(script.sha1, keys: ["lock"], arguments: ["x"])
                }
                #expect(missing?.serverErrorCode == "NOSCRIPT")
                try await client.set("lock", to: Array("token-3".utf8))
                #expect((try await client.eval(script, keys: ["lock"], arguments: ["token-3"])) == .integer(1))
                // EVAL cached it: EVALSHA works now.
                #expect((try await client.evalSHA(script.sha1, keys: ["lock"], arguments: ["x"])) == .integer(0))
            }
        }
    }

    @Test("SCAN with MATCH pages through the matching keys")
    func scan() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                for index in 0..<250 { try await client.set(RESPArgument("thumb:\(index)"), to: [1]) }
                for index in 0..<50 { try await client.set(RESPArgument("other:\(index)"), to: [1]) }
                var keys = Set<[UInt8]>()
                var cursor: UInt64 = 0
                var pages = 0
                repeat {
                    let page = try await client.scan(cursor: cursor, matching: "thumb:*", count: 40)
                    keys.formUnion(page.keys)
                    cursor = page.cursor
                    pages += 1
                } while cursor != 0 && pages < 1000
                #expect(keys == Set((0..<250).map { Array("thumb:\($0)".utf8) }))
                #expect(pages > 1)
            }
        }
    }

    @Test("server errors are typed: WRONGTYPE as a server error, OOM as out of memory")
    func serverErrors() async throws {
        let options = RedisServer.Options(extraArguments: ["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"])
        try await withRedisServer(options) { server throws in
            try await withClient(for: server) { client throws in
                _ = try await client.send(["LPUSH", "list", "x"])
                let wrongType = await expectFailure { try await client.get("list") }
                guard case .server(let command, let message)? = wrongType else {
                    Issue.record("unexpected \(String(describing: wrongType))")
                    return
                }
                #expect(command == "GET")
                #expect(message.hasPrefix("WRONGTYPE"))
                #expect(wrongType?.serverErrorCode == "WRONGTYPE")

                let unknown = await expectFailure { try await client.send(["NOSUCHCOMMAND", "secret-argument"]) }
                #expect(unknown?.serverErrorCode == "ERR")
                #expect(unknown?.description.hasPrefix("Redis refused NOSUCHCOMMAND") == true)

                // Fill the 2 MB until the server refuses writes.
                var outOfMemory: RedisClientError?
                for index in 0..<64 {
                    do throws(RedisClientError) {
                        try await client.set(RESPArgument("big:\(index)"), to: everyByteValue(count: 256 << 10))
                    } catch {
                        outOfMemory = error
                        break
                    }
                }
                guard case .outOfMemory(let command, let message)? = outOfMemory else {
                    Issue.record("unexpected \(String(describing: outOfMemory))")
                    return
                }
                #expect(command == "SET")
                #expect(message.hasPrefix("OOM"))
                // The connection is still good: reads work.
                try await client.ping()
            }
        }
    }

    @Test("1,000 concurrent commands on one connection get their own replies")
    func pipelining() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server) { client throws in
                for index in 0..<1000 where index % 2 == 0 {
                    try await client.set(RESPArgument("key:\(index)"), to: Array("value:\(index)".utf8))
                }
                let connectionID = try await client.send(["CLIENT", "ID"])
                try await withThrowingTaskGroup(of: (Int, [UInt8]?).self) { group in
                    for index in 0..<1000 {
                        group.addTask { (index, try await client.get(RESPArgument("key:\(index)"))) }
                    }
                    var seen = 0
                    for try await (index, value) in group {
                        #expect(value == (index % 2 == 0 ? Array("value:\(index)".utf8) : nil), "key:\(index)")
                        seen += 1
                    }
                    #expect(seen == 1000)
                }
                // All on the one connection.
                #expect((try await client.send(["CLIENT", "ID"])) == connectionID)
                let clients = try server.command(["CLIENT", "LIST"])
                #expect(clients.split(separator: "\n").count == 2, "the client's connection and the admin's")
            }
        }
    }

    @Test("selects the configured database on each connection")
    func selectsDatabase() async throws {
        try await withRedisServer { server throws in
            try await withClient(for: server, { $0.database = 3 }) { client throws in
                try await client.set("k", to: [3])
            }
            try await withClient(for: server) { client throws in
                #expect((try await client.get("k")) == nil)
                #expect((try await client.send(["SELECT", "3"])) == .simpleString("OK"))
                #expect((try await client.get("k")) == [3])
            }
            let client = try NIORedisClient(
                configuration: RedisConfiguration(host: "127.0.0.1", port: server.port, database: 100))
            let outOfRange = await expectFailure { try await client.ping() }
            await client.close()
            guard case .server(let command, let message)? = outOfRange else {
                Issue.record("unexpected \(String(describing: outOfRange))")
                return
            }
            #expect(command == "SELECT")
            #expect(message.contains("out of range"))
        }
    }

    @Test("after close, commands fail with clientClosed")
    func closing() async throws {
        try await withRedisServer { server throws in
            let client = try NIORedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: server.port))
            try await client.ping()
            #expect(client.isConnected)
            await client.close()
            #expect(!client.isConnected)
            let error = await expectFailure { try await client.ping() }
            guard case .clientClosed? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            await client.close()
        }
    }
}
