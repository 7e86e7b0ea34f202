import HoardRESP
import RedisTestSupport
import Testing

@Suite("NIORedisClient authentication", .requiresRedisServer)
struct NIORedisClientAuthTests {
    static let password = "correct-horse-battery-staple"

    @Test("requirepass: the right password works")
    func rightPassword() async throws {
        try await withRedisServer(.init(password: Self.password)) { server throws in
            try await withClient(for: server) { client throws in
                try await client.set("k", to: [1])
                #expect((try await client.get("k")) == [1])
            }
        }
    }

    @Test("requirepass: a wrong password is an authentication error that does not show it")
    func wrongPassword() async throws {
        try await withRedisServer(.init(password: Self.password)) { server throws in
            try await withClient(for: server, { $0.password = "wrong-password-hunter2" }) { client throws in
                let error = await expectFailure { try await client.ping() }
                guard case .authenticationFailed(let user, let message)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(user == nil)
                #expect(message.hasPrefix("WRONGPASS"))
                let description = error?.description ?? ""
                #expect(description.contains("authentication failed"))
                #expect(!description.contains("hunter2"))
                #expect(!description.contains(Self.password))
                #expect(!String(reflecting: error as Any).contains("hunter2"))
                #expect(!client.configuration.description.contains("hunter2"))
            }
        }
    }

    @Test("requirepass: no password is an authentication error (NOAUTH)")
    func noPassword() async throws {
        try await withRedisServer(.init(password: Self.password)) { server throws in
            try await withClient(for: server, { $0.password = nil }) { client throws in
                let error = await expectFailure { try await client.get("k") }
                guard case .authenticationFailed(_, let message)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(message.hasPrefix("NOAUTH"))
            }
        }
    }

    @Test("an ACL user with its password works; a wrong one does not")
    func aclUser() async throws {
        try await withRedisServer(.init(password: Self.password)) { server throws in
            #expect(try server.command(["ACL", "SETUSER", "tier", "on", ">tier-secret", "~hoard:*", "+@all"]) == "+OK")
            try await withClient(
                for: server,
                {
                    $0.username = "tier"
                    $0.password = "tier-secret"
                }
            ) { client throws in
                try await client.set("hoard:k", to: [1])
                #expect((try await client.get("hoard:k")) == [1])
                #expect((try await client.send(["ACL", "WHOAMI"])) == .bulkString(Array("tier".utf8)))
                // Outside its key pattern the server refuses (NOPERM), as a server error.
                let denied = await expectFailure { try await client.get("other") }
                #expect(denied?.serverErrorCode == "NOPERM")
            }
            try await withClient(
                for: server,
                {
                    $0.username = "tier"
                    $0.password = "not-tier-secret"
                }
            ) { client throws in
                let error = await expectFailure { try await client.ping() }
                guard case .authenticationFailed(let user, _)? = error else {
                    Issue.record("unexpected \(String(describing: error))")
                    return
                }
                #expect(user == "tier")
                #expect(error?.description.contains("'tier'") == true)
                #expect(error?.description.contains("not-tier-secret") == false)
            }
        }
    }

    @Test("a password given from a redis:// URL works")
    func passwordFromURL() async throws {
        try await withRedisServer(.init(password: Self.password)) { server throws in
            var configuration = try RedisConfiguration(url: "redis://:\(Self.password)@127.0.0.1:\(server.port)/2")
            configuration.commandTimeout = .seconds(10)
            let client = try NIORedisClient(configuration: configuration)
            try await client.set("k", to: [2])
            await client.close()
            #expect(try server.command(["SELECT", "2"]) == "+OK")
        }
    }
}
