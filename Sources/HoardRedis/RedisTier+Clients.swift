import HoardRESP

extension RedisTier {
    /// A client for `server`, and how to close it: the one place that names the client
    /// implementation, so that another RESP client can replace this one here.
    static func makeClient(
        _ server: RedisConfiguration
    ) throws(RedisTierError) -> (any RedisCommandExecuting, @Sendable () async -> Void) {
        do {
            let client = try NIORedisClient(configuration: server)
            return (client, { await client.close() })
        } catch {
            throw .client(error)
        }
    }
}
