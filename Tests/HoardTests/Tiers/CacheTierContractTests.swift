import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore

/// The contract every byte tier keeps, run against the disk tier and the test double the
/// manager's tests use (the Redis tier's tests run it too).
@Suite("CacheTier contract")
struct CacheTierContractTests {
    @Test("DiskCache keeps the contract", arguments: CacheTierContract.Check.allCases)
    func disk(_ check: CacheTierContract.Check) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await CacheTierContract.run(check) { try DiskCache(directory: folder.cacheURL) }
    }

    @Test("the dictionary tier of the manager's tests keeps the contract", arguments: CacheTierContract.Check.allCases)
    func dictionary(_ check: CacheTierContract.Check) async throws {
        try await CacheTierContract.run(check) { DictionaryTier() }
    }
}
