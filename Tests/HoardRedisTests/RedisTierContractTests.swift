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
            // A generous deadline: this checks what the tier keeps, not how fast. Under
            // ThreadSanitizer, with every suite's servers running at once on two cores, one CI run
            // (f058418) failed three expectations of one check here, as a command that outlasts
            // the default 2 seconds does (its store dropped, its read a miss, an error counted).
            // Deadlines have tests of their own (RedisFaultTests; NIORedisClient's deadlines).
            let tier = try RedisTier(
                configuration: .init(
                    urls: ["redis://127.0.0.1:\(server.port)"], namespace: "contract", timeout: .seconds(30)))
            defer { Task { await tier.shutdown() } }
            try await CacheTierContract.run(check) { tier }
            let statistics = tier.statistics
            #expect(statistics.errors == 0, "no command failed: \(statistics)")
        }
    }
}
