import Foundation
import Hoard
import HoardRedis
import HoardTestSupport
import RedisTestSupport
import Testing

/// The contract every byte tier keeps (the disk tier runs the same checks), on a Redis tier over a
/// server of its own.
@Suite("RedisTier keeps the CacheTier contract", .requiresRedisServer)
struct RedisTierContractTests {
    @Test("RedisTier keeps the contract", arguments: CacheTierContract.Check.allCases)
    func contract(_ check: CacheTierContract.Check) async throws {
        try await withRedisServer { server in
            let tier = try RedisTier(
                configuration: .init(urls: ["redis://127.0.0.1:\(server.port)"], namespace: "contract"))
            defer { Task { await tier.shutdown() } }
            try await CacheTierContract.run(check) { tier }
            #expect(tier.statistics.errors == 0, "no command failed")
        }
    }
}
