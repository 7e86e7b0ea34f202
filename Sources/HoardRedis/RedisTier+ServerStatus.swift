import HoardRESP

/// What one server of a ``RedisTier`` holds for its namespace: for `hoard cache stats`.
public struct RedisServerStatus: Sendable, Hashable {
    /// The server's address, without credentials.
    public var server: String
    /// Whether it answered.
    public var isReachable: Bool
    /// Values of the namespace on it.
    public var valueCount: Int
    /// Fetch leases held on it now.
    public var leaseCount: Int
    /// The server's `used_memory`, in bytes (all namespaces), when it said.
    public var usedMemoryBytes: Int?
    /// Its `maxmemory` (0 for no limit), when it said.
    public var maximumMemoryBytes: Int?
    /// Its `maxmemory-policy`, when it said.
    public var evictionPolicy: String?
}

extension RedisTier {
    /// Each server's view of the namespace: its values and leases (a `SCAN` of the namespace)
    /// and its memory (`INFO memory`).
    ///
    /// - Complexity: A `SCAN` of each server's keyspace, a page of 500 keys per round trip.
    public func serverStatus() async -> [RedisServerStatus] {
        var statuses: [RedisServerStatus] = []
        for shard in shards {
            var status = RedisServerStatus(server: shard.name, isReachable: false, valueCount: 0, leaseCount: 0)
            var values = 0
            var leases = 0
            status.isReachable = await forEachPage(on: shard, matching: keyPrefix + "{*") { keys in
                for key in keys {
                    if key.last == UInt8(ascii: "}") { values += 1 } else { leases += 1 }
                }
            }
            status.valueCount = values
            status.leaseCount = leases
            if let info = await shard.run("INFO", { try await $0.info(section: "memory") }) {
                var fields: [String: String] = [:]
                for line in info.split(whereSeparator: \.isNewline) {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
                }
                status.usedMemoryBytes = fields["used_memory"].flatMap { Int($0) }
                status.maximumMemoryBytes = fields["maxmemory"].flatMap { Int($0) }
                status.evictionPolicy = fields["maxmemory_policy"]
            }
            statuses.append(status)
        }
        return statuses
    }
}
