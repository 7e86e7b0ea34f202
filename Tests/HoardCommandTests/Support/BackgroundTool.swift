import Foundation
import HoardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of the built `hoard` tool started in the background: for runs that must overlap, or
/// be killed part-way.
///
/// Its standard output and error go to files rather than pipes, and ``finish(timeLimit:)`` polls
/// for its exit, so waiting for several runs blocks no thread of the test's cooperative pool.
///
/// ```swift
/// let runs = try (0..<3).map { try BackgroundTool(["thumbnails", ...], folder: scratch.path("run-\($0)")) }
/// var outcomes: [HoardTool.Outcome] = []
/// for run in runs { outcomes.append(try await run.finish()) }
/// ```
final class BackgroundTool {
    private let process = Process()
    private let outputPath: String
    private let errorPath: String

    /// Starts the tool with `arguments`; its output files go in `folder` (created).
    ///
    /// - Parameters:
    ///   - environment: Variables set (or replaced) in the tool's environment.
    ///   - launcher: A command that runs the tool (`["/usr/bin/prlimit", "--nofile=1024:1024"]`).
    init(_ arguments: [String], folder: String, environment: [String: String] = [:], launcher: [String] = []) throws {
        let tool = try #require(HoardTool.executablePath, "run `swift build --build-tests` first")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        outputPath = folder + "/stdout"
        errorPath = folder + "/stderr"
        for path in [outputPath, errorPath] {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        process.executableURL = URL(fileURLWithPath: launcher.first ?? tool)
        process.arguments = launcher.isEmpty ? arguments : launcher.dropFirst() + [tool] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
    }

    /// The tool's process identifier.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Waits until `count` lines of the tool's standard error hold `text` (polling), and returns
    /// it; `nil` when the tool exits or `timeLimit` passes first. The error is read once more
    /// after either, so a stall of the test's task past the deadline does not hide what was written.
    func waitForError(
        containing text: String, lines count: Int = 1, timeLimit: Duration = .seconds(120)
    ) async throws -> String? {
        let deadline = ContinuousClock.now + timeLimit
        while true {
            let isLastRead = !process.isRunning || ContinuousClock.now >= deadline
            let error = String(decoding: try Self.contents(of: errorPath), as: UTF8.self)
            if error.split(separator: "\n").filter({ $0.contains(text) }).count >= count { return error }
            if isLastRead { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends `signal` to the tool.
    func send(_ signal: Int32) {
        _ = kill(process.processIdentifier, signal)
    }

    /// Kills the tool at once (`SIGKILL`), as a crash or the out-of-memory killer would.
    func killAbruptly() {
        _ = kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the tool to exit (killing it once `timeLimit` has passed) and returns what it
    /// printed.
    func finish(timeLimit: Duration = .seconds(60)) async throws -> HoardTool.Outcome {
        let deadline = ContinuousClock.now + timeLimit
        var timedOut = false
        while process.isRunning {
            if ContinuousClock.now >= deadline, !timedOut {
                timedOut = true
                killAbruptly()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        let output = try Self.contents(of: outputPath)
        let error = try Self.contents(of: errorPath)
        return HoardTool.Outcome(
            status: process.terminationStatus, standardOutputBytes: output,
            standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: error, as: UTF8.self),
            timedOut: timedOut)
    }

    /// A file's bytes, read through a file handle: `Data(contentsOf:)` leaks its buffer when the
    /// file is empty (swift-foundation's `readBytesFromFile`, which LeakSanitizer reports), and a
    /// killed tool's output often is.
    private static func contents(of path: String) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }
}
