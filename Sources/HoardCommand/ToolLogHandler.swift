import Foundation
import Hoard
import HoardOriginals
import HoardSystem
import Logging

/// Where the cache and the shared tier log in the tool: standard error, less what the summary
/// already says. A command prints a diagnostic as command-line tools do (`hoard: warning: the
/// message (key=value …)`), each line once per run (two caches opened on one folder warn of it
/// once); `hoard serve` logs as a server does, through swift-log's stream handler, with the time.
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
    /// How a message is written.
    enum Style: Sendable {
        /// `hoard: warning: message (key=value)`, each line once per run: the batch commands.
        case tool
        /// swift-log's stream format, with the time and the label: `hoard serve`.
        case server
    }

    private var stream: StreamLogHandler
    private let style: Style

    /// A handler writing to standard error under `label`, in `style`.
    init(label: String, style: Style = .tool) {
        stream = StreamLogHandler.standardError(label: label)
        self.style = style
    }

    /// The lines the tool style has written in this process: each is written once. Past
    /// ``rememberedLineLimit`` lines, new ones are written without being remembered.
    private static let written = Lock(Set<String>())
    static let rememberedLineLimit = 1_000

    /// The cache's messages that the summary replaces: a failed fetch (`HoardMonitor`) and a
    /// fetched value it could not store (the input fails with the reason).
    static let replacedMessages: Set<String> = ["Fetch failed", "Cannot store the fetched value"]

    /// A logger with this handler, labelled as the library labels its default ones: the cache
    /// `"Hoard.default"`, the shared tier `"Hoard.redis"`.
    static func logger(label: String = "Hoard.default", style: Style = .tool) -> Logger {
        var logger = Logger(label: label) { ToolLogHandler(label: $0, style: style) }
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
        switch style {
        case .server: stream.log(event: event)
        case .tool: Self.writeOnce(Self.line(for: event))
        }
    }

    /// `hoard: warning: message (key=value key=value)`, the metadata sorted by key.
    static func line(for event: LogEvent) -> String {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "hoard: \(event.level): \(event.message)" + (fields.isEmpty ? "" : " (\(fields.joined(separator: " ")))") + "\n"
    }

    private static func writeOnce(_ line: String) {
        let isNew = written.withLock { written in
            guard !written.contains(line) else { return false }
            if written.count < rememberedLineLimit { written.insert(line) }
            return true
        }
        if isNew { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
