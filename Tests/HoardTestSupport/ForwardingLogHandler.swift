import Logging

/// A `LogHandler` that hands every line (level, message, and the handler's metadata merged with
/// the line's) to a closure; the test recorders build their loggers on it.
public struct ForwardingLogHandler: LogHandler {
    public typealias Forward = @Sendable (Logger.Level, String, Logger.Metadata) -> Void

    private let forward: Forward
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(_ forward: @escaping Forward) {
        self.forward = forward
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        forward(event.level, event.message.description, metadata.merging(event.metadata ?? [:]) { $1 })
    }
}
