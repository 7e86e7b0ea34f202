import Hoard
import HoardSystem
import HoardTestSupport
import Logging

/// The log lines a `Logger` built with ``logger()`` received.
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
        var logger = Logger(label: "HoardTests.DiskCache") { _ in
            ForwardingLogHandler { [self] in record(Line(level: $0, message: $1, metadata: $2)) }
        }
        logger.logLevel = .trace
        return logger
    }
}
