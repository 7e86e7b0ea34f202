import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-line progress report on standard error (count, rate, ETA), only when it is a terminal.
struct Progress: Sendable {
    /// A progress line for standard error, or `nil` when standard error is not a terminal.
    static func forStandardError() -> Progress? {
        isatty(STDERR_FILENO) == 1 ? Progress() : nil
    }

    func update(done: Int, total: Int, elapsed: Double) {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let line =
            "\r\u{1B}[K[\(done)/\(total)] \(rate.fixed(decimals: 1)) images/s, ETA \(remaining.fixed(decimals: 0)) s"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
