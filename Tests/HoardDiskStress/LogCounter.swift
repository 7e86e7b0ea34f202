import Hoard
import HoardSystem
import HoardTestSupport
import Logging

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
        var logger = Logger(label: "HoardDiskStress") { _ in
            ForwardingLogHandler { [self] in record(level: $0, message: $1, metadata: $2) }
        }
        logger.logLevel = .debug
        return logger
    }

    func record(level: Logger.Level, message: String, metadata: Logger.Metadata) {
        counts.withLock { counts in
            if message.hasPrefix("Trimmed disk cache"), metadata["removed"] != "0" { counts.trimsThatRemoved += 1 }
            if level >= .warning { counts.warnings.append("\(message) \(metadata)") }
        }
    }
}
