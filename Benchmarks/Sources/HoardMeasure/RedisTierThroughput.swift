import Foundation
import Hoard
import HoardRedis

/// What `HoardMeasure redis-tier` times: `RedisTier.entry(forKey:)` (a hit) or `store(_:forKey:)`.
enum RedisTierOperation: String {
    case get
    case set
}

/// `RedisTier` get or set throughput against the redis-server on `127.0.0.1:port`, with
/// `callers` tasks calling the tier at once for `seconds` (after a short warm-up), as
/// `redis-benchmark -t get|set -d RECORD` does with its connections and pipeline.
///
/// The tier has one connection per server and pipelines on it, so `callers` tasks mean up to
/// `callers` commands in flight on one connection: `redis-benchmark -c 1 -P callers` is the
/// matching peer (`Benchmarks/compare` runs both). The tier stores a record (a 48-byte header,
/// the key, then the value) under `hoard:v1:bench:{SHA-256 of the key}`; the record's size is
/// printed so that the peer can store values of the same size.
///
/// 64 keys `bench-0000` ... `bench-0063`, each task taking every `callers`-th one; for `get`
/// they are stored first and every read must hit. Prints one line:
///
/// ```
/// RedisTier get 1024 B values (record 1082 B), 16 callers: 41234 ops/s (123702 ops in 3.000 s)
/// ```
///
/// - Throws: When the tier cannot be made, or when any command failed, was skipped, dropped
///   or missed (the tier does not throw for those: its statistics say).
func measureRedisTier(
    port: Int, valueByteCount: Int, callers: Int, seconds: Double, operation: RedisTierOperation, onLoop: Bool
) async throws {
    let configuration = try RedisTier.Configuration(urls: ["redis://127.0.0.1:\(port)"], namespace: "bench")
    let tier = try RedisTier(configuration: configuration)
    let keys = (0..<64).map { String(format: "bench-%04d", $0) }
    let entry = CacheTierEntry(bytes: randomBytes(valueByteCount), createdAt: Date(), expiresAt: nil)
    let recordByteCount = 48 + keys[0].utf8.count + valueByteCount
    for key in keys { try await tier.store(entry, forKey: key) }

    _ = try await redisTierRun(
        tier, keys: keys, entry: entry, callers: callers, seconds: min(0.5, seconds / 4), operation, onLoop: onLoop)
    let before = tier.statistics
    let start = DispatchTime.now().uptimeNanoseconds
    let count = try await redisTierRun(
        tier, keys: keys, entry: entry, callers: callers, seconds: seconds, operation, onLoop: onLoop)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let after = tier.statistics
    await tier.shutdown()

    let failures = [
        ("errors", after.errors), ("skipped commands", after.skippedCommands),
        ("dropped writes", after.droppedWrites), ("damaged values", after.damagedValues),
        ("misses", after.misses - before.misses),
    ].filter { $0.1 > 0 }
    guard failures.isEmpty else {
        throw RedisTierMeasureError(
            description: "RedisTier \(operation.rawValue) on 127.0.0.1:\(port) failed: "
                + failures.map { "\($0.1) \($0.0)" }.joined(separator: ", ") + " (see the log above)")
    }
    print(
        String(
            format: "RedisTier %@ %d B values (record %d B), %d callers: %.0f ops/s (%d ops in %.3f s)",
            operation.rawValue, valueByteCount, recordByteCount, callers, Double(count) / elapsed, count, elapsed))
}

/// A failed `redis-tier` measurement, said in full.
struct RedisTierMeasureError: Error, CustomStringConvertible {
    let description: String
}

// MARK: - Helpers

/// `callers` tasks calling the tier until `seconds` have passed; returns how many calls finished.
private func redisTierRun(
    _ tier: RedisTier, keys: [String], entry: CacheTierEntry, callers: Int, seconds: Double,
    _ operation: RedisTierOperation, onLoop: Bool
) async throws -> Int {
    let deadline = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for caller in 0..<callers {
            group.addTask(executorPreference: onLoop ? tier.taskExecutor : nil) {
                var count = 0
                var index = caller % keys.count
                while ContinuousClock.now < deadline {
                    switch operation {
                    case .get: _ = try await tier.entry(forKey: keys[index])
                    case .set: try await tier.store(entry, forKey: keys[index])
                    }
                    count += 1
                    index = (index + callers) % keys.count
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
}
