import HoardRESP
import RedisTestSupport
import Testing

@Suite("RedisConfiguration")
struct RedisConfigurationTests {
    @Test("reads host, port, database, user and password from a URL")
    func parsesURLs() throws {
        let plain = try RedisConfiguration(url: "redis://cache.internal")
        #expect(plain.host == "cache.internal")
        #expect(plain.port == 6379)
        #expect(plain.database == 0)
        #expect(plain.username == nil && plain.password == nil && plain.tls == nil)

        let full = try RedisConfiguration(url: "rediss://reader:s3cr%40t%3A%2F@10.0.0.5:6380/3")
        #expect(full.host == "10.0.0.5")
        #expect(full.port == 6380)
        #expect(full.database == 3)
        #expect(full.username == "reader")
        #expect(full.password == "s3cr@t:/")
        #expect(full.tls == RedisConfiguration.TLS())

        let passwordOnly = try RedisConfiguration(url: "REDIS://:pw@localhost:1/")
        #expect(passwordOnly.username == nil)
        #expect(passwordOnly.password == "pw")
        #expect(passwordOnly.port == 1)

        let ipv6 = try RedisConfiguration(url: "redis://[::1]:7000/15")
        #expect(ipv6.host == "::1")
        #expect(ipv6.port == 7000)
        #expect(ipv6.database == 15)

        let unencodedAt = try RedisConfiguration(url: "redis://user:p@ss@host")
        #expect(unencodedAt.password == "p@ss")
        #expect(unencodedAt.host == "host")
    }

    @Test(
        "refuses malformed URLs without showing their credentials",
        arguments: [
            "http://user:hunter2@host", "redis//host", "redis://user:hunter2@", "redis://user:hunter2@host:port",
            "redis://user:hunter2@host:99999999", "redis://user:hunter2@host/db", "redis://user:hunter2@host/1?x=1",
            "redis://user:hunter2@[::1", "redis://user:hunter2@[::1]x", "redis://user:hunt%2@host",
            "redis://user:hunter2@host:",
        ])
    func refusesMalformedURLs(_ url: String) {
        do {
            _ = try RedisConfiguration(url: url)
            Issue.record("accepted \(url)")
        } catch {
            guard case .invalidValue(let invalid) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(invalid.field == "Redis URL")
            #expect(!invalid.value.contains("hunter2") && !invalid.value.contains("hunt%2"))
            #expect(!error.description.contains("hunter2") && !error.description.contains("hunt%2"))
        }
    }

    @Test("never shows the password in its description, debug description or mirror")
    func hidesPassword() throws {
        let configuration = try RedisConfiguration(url: "rediss://app:hunter2@cache:6380/2")
        #expect(configuration.description.hasPrefix("rediss://app:***@cache:6380/2 ("))
        #expect(!configuration.description.contains("hunter2"))
        #expect(!configuration.debugDescription.contains("hunter2"))
        #expect(!String(reflecting: configuration).contains("hunter2"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("***"))
    }

    @Test("validates every field")
    func validates() throws {
        try RedisConfiguration().validate()
        var cases: [(String, RedisConfiguration)] = []
        func adjusted(_ field: String, _ change: (inout RedisConfiguration) -> Void) {
            var configuration = RedisConfiguration(password: "hunter2")
            change(&configuration)
            cases.append((field, configuration))
        }
        adjusted("host") { $0.host = "" }
        adjusted("host") { $0.host = "two words" }
        adjusted("port") { $0.port = 0 }
        adjusted("port") { $0.port = 65_536 }
        adjusted("database") { $0.database = -1 }
        adjusted("username") { $0.username = "" }
        adjusted("password") {
            $0.username = "reader"
            $0.password = nil
        }
        adjusted("connectTimeout") { $0.connectTimeout = .zero }
        adjusted("commandTimeout") { $0.commandTimeout = .seconds(-1) }
        adjusted("maximumReplyByteCount") { $0.maximumReplyByteCount = 1023 }
        adjusted("maximumReplyByteCount") { $0.maximumReplyByteCount = .max }
        adjusted("tls.serverName") { $0.tls = .init(serverName: "") }
        adjusted("tls.trustRoots") { $0.tls = .init(trustRoots: .certificateFile(path: "")) }
        for (field, configuration) in cases {
            #expect(throws: RedisClientError.self, "\(field)") { try configuration.validate() }
            do {
                try configuration.validate()
            } catch {
                guard case .invalidValue(let invalid) = error else {
                    Issue.record("\(field): \(error)")
                    continue
                }
                #expect(invalid.field == "RedisConfiguration.\(field)")
                #expect(!error.description.contains("hunter2"))
            }
            #expect(throws: RedisClientError.self) { try NIORedisClient(configuration: configuration) }
        }
    }

    @Test("refuses a certificate file that cannot be read")
    func refusesMissingCertificateFile() {
        let configuration = RedisConfiguration(tls: .init(trustRoots: .certificateFile(path: "/nonexistent/ca.pem")))
        #expect {
            try NIORedisClient(configuration: configuration)
        } throws: { error in
            guard let error = error as? RedisClientError, case .tlsFailed = error else { return false }
            return true
        }
    }
}
