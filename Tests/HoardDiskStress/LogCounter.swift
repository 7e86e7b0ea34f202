import Logging
import Hoard

/// What the stress child's caches logged: trims that removed entries (the proof that the limit
/// kept them busy) and warnings (an automatic trim that failed, a damaged entry), which the
/// multi-process test counts as errors.
final class LogCounter: Sendable {
    struct Counts: Sendable {
        var trimsThatRemoved = 0
        var warnings: [String] = []
    }

    private let counts = Lock(Counts())

    var current: Counts { counts.withLock { $0 } }

    /// A logger at debug level (where trims are reported) that counts into this.
    func logger() -> Logger {
        var logger = Logger(label: "HoardDiskStress") { _ in CountingLogHandler(counter: self) }
        logger.logLevel = .debug
        return logger
    }

    func record(level: Logger.Level, message: String, metadata: Logger.Metadata?) {
        counts.withLock { counts in
            if message.hasPrefix("Trimmed disk cache"), metadata?["removed"] != "0" { counts.trimsThatRemoved += 1 }
            if level >= .warning { counts.warnings.append("\(message) \(metadata ?? [:])") }
        }
    }
}

/// A `LogHandler` that hands every line to a ``LogCounter``.
struct CountingLogHandler: LogHandler {
    let counter: LogCounter
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        counter.record(level: event.level, message: event.message.description, metadata: event.metadata)
    }
}
