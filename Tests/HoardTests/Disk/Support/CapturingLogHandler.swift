import Logging
import Hoard

/// The log lines a `Logger` built with ``CapturingLogHandler/logger()`` received.
final class LogRecorder: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let lines = Lock<[Line]>([])

    var all: [Line] { lines.withLock { $0 } }

    func record(_ line: Line) {
        lines.withLock { $0.append(line) }
    }

    /// Lines whose message contains `text`.
    func lines(containing text: String) -> [Line] {
        all.filter { $0.message.contains(text) }
    }

    func logger() -> Logger {
        var logger = Logger(label: "HoardTests.DiskCache") { _ in CapturingLogHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }
}

/// A `LogHandler` that hands every line to a ``LogRecorder``.
struct CapturingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.record(
            LogRecorder.Line(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
