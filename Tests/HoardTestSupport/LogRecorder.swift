import HoardSystem
import Logging

/// The log lines a `Logger` built with ``logger()`` received, kept for assertions.
public final class LogRecorder: Sendable {
    /// One logged line.
    public struct Line: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    /// A recorder with no lines yet.
    public init() {}

    private let lines = Lock<[Line]>([])

    /// Every line so far.
    public var all: [Line] { lines.withLock { $0 } }

    /// Keeps `line`.
    public func record(_ line: Line) {
        lines.withLock { $0.append(line) }
    }

    /// Lines whose message contains `text`.
    public func lines(containing text: String) -> [Line] {
        all.filter { $0.message.contains(text) }
    }

    /// A logger, at trace level, whose lines this recorder keeps.
    public func logger(label: String = "HoardTests") -> Logger {
        var logger = Logger(label: label) { _ in
            ForwardingLogHandler { [self] in record(Line(level: $0, message: $1, metadata: $2)) }
        }
        logger.logLevel = .trace
        return logger
    }
}
