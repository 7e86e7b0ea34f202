import Foundation
import Hoard
import HoardOriginals
import Logging

/// Where the cache and the shared tier log in the tool: standard error, as swift-log's default
/// handler writes it, less what the summary already says.
///
/// The cache warns of every fetch that fails; in the tool a fetch is one input's download and
/// thumbnail, and the summary lists each failed input with its reason, redacted (see
/// ``URLCredentials``), so those warnings are dropped. So are the warnings of fetched values that
/// could not be stored: the batch fails their inputs with the same reason
/// (``CacheEntry/storeError``). Everything else (a Redis server failing and coming back) is kept,
/// with any password in a URL shown as `***`. `HOARD_LOG_LEVEL` (`trace`, `debug`, ... `critical`)
/// sets the level; `info` by default.
///
/// ```swift
/// configuration.logger = ToolLogHandler.logger()
/// ```
struct ToolLogHandler: LogHandler {
    private var stream: StreamLogHandler

    /// A handler writing to standard error under `label`.
    init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
    }

    /// The cache's messages that the summary replaces: a failed fetch (`HoardMonitor`) and a
    /// fetched value it could not store (the input fails with the reason).
    static let replacedMessages: Set<String> = ["Fetch failed", "Cannot store the fetched value"]

    /// A logger with this handler, labelled as the library labels its default ones: the cache
    /// `"Hoard.default"`, the shared tier `"Hoard.redis"`.
    static func logger(label: String = "Hoard.default") -> Logger {
        var logger = Logger(label: label) { ToolLogHandler(label: $0) }
        if let level = ProcessInfo.processInfo.environment["HOARD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) {
            logger.logLevel = level
        }
        return logger
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    /// Kept here and merged into each message's own, rather than set on the stream handler, which
    /// formats its metadata again on every change (the server sets a request id per request).
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let message = event.message.description
        guard !Self.replacedMessages.contains(message) else { return }
        var event = event
        event.message = "\(URLCredentials.redactingPasswords(in: event.message.description))"
        if !metadata.isEmpty { event.metadata = metadata.merging(event.metadata ?? [:]) { $1 } }
        event.metadata = event.metadata?.mapValues { .string(URLCredentials.redactingPasswords(in: "\($0)")) }
        stream.log(event: event)
    }
}
