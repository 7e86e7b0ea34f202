import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-line progress report on standard error (a bar, the count, failures so far, rate, ETA),
/// only when it is a terminal: `[#######.............] 35/100, 2 failed, 41.3 images/s, ETA 2 s`.
struct Progress: Sendable {
    /// A progress line for standard error, or `nil` when standard error is not a terminal.
    static func forStandardError() -> Progress? {
        isatty(STDERR_FILENO) == 1 ? Progress() : nil
    }

    /// The width of the bar, in characters.
    static let barWidth = 20

    func update(done: Int, failed: Int, total: Int, elapsed: Double) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.line(done: done, failed: failed, total: total, elapsed: elapsed)).utf8))
    }

    /// The line's text (without the terminal's carriage return and erase).
    static func line(done: Int, failed: Int, total: Int, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let filled = total > 0 ? min(barWidth, done * barWidth / total) : barWidth
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let failures = failed > 0 ? ", \(failed) failed" : ""
        return "[\(bar)] \(done)/\(total)\(failures), \(rate.fixed(decimals: 1)) images/s, ETA \(remaining.fixed(decimals: 0)) s"
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
