import Foundation

/// Blocking work run on a thread of its own, so that it does not hold one of Swift
/// concurrency's worker threads.
///
/// The cooperative pool has one thread per core: on a 2-core machine, a test that reads a child
/// process's two pipes to the end in two tasks (or waits for it to exit) holds the whole pool for
/// as long as the child runs, and every other test's timers, deadlines and replies wait with it.
/// Tests measuring how long a call took then fail. Wait for children through this instead.
public enum BlockingCall {
    /// The result of `body`, run on a new thread.
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Everything `handle` yields until end of file, read on a thread of its own.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        await run { handle.readDataToEndOfFile() }
    }

    /// Waits on a thread of its own until `process` exits.
    public static func waitUntilExit(_ process: Process) async {
        await run { process.waitUntilExit() }
    }

    /// The first line `handle` yields (without its newline), or what came before end of file.
    public static func readLine(_ handle: FileHandle) async -> String {
        await run {
            var bytes: [UInt8] = []
            while let byte = handle.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") { bytes.append(byte) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
