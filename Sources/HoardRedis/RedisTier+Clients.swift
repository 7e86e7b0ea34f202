import HoardRESP
import NIOPosix

extension RedisTier {
    /// The clients for `servers`, how to close each, and the executor of the one event loop
    /// they all run on: the one place that names the client implementation, so that another
    /// RESP client can replace this one here.
    static func makeClients(
        _ servers: [RedisConfiguration]
    ) throws(RedisTierError) -> (
        clients: [(client: any RedisCommandExecuting, close: @Sendable () async -> Void)],
        taskExecutor: any TaskExecutor
    ) {
        // One loop for every server: a task that prefers its executor talks to all of them
        // without leaving its thread.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        var clients: [(client: any RedisCommandExecuting, close: @Sendable () async -> Void)] = []
        for server in servers {
            do {
                let client = try NIORedisClient(configuration: server, eventLoopGroup: eventLoop)
                clients.append((client, { await client.close() }))
            } catch {
                throw .client(error)
            }
        }
        return (clients, EventLoopTaskExecutor(eventLoop: eventLoop))
    }
}
