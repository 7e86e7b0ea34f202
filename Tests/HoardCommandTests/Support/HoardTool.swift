import Foundation
import HoardTestSupport
import Testing

/// Runs the built `hoard` executable.
enum HoardTool {
    struct Outcome: Sendable {
        let status: Int32
        let standardOutputBytes: Data
        let standardOutput: String
        let standardError: String
        /// Whether the run was killed for outlasting its time limit.
        var timedOut = false

        /// The `--json` summary.
        func summary() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(standardOutput.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(standardOutput)")
        }
    }

    /// The built tool's path, or `nil` when it is not built.
    static var executablePath: String? { BuiltProduct.url(named: "hoard")?.path }

    /// Runs the tool with `arguments`; with a `timeLimit`, kills it (`SIGKILL`) once that has
    /// passed, so that a hang fails a test instead of blocking the suite.
    static func run(
        _ arguments: [String], standardInput: String? = nil, timeLimit: Duration? = nil,
        environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        guard let executable = BuiltProduct.url(named: "hoard") else {
            Issue.record(
                "the hoard tool is not built next to the tests: run `swift build --build-tests` first",
                sourceLocation: sourceLocation)
            throw CocoaError(.fileNoSuchFile)
        }
        return try await runProgram(
            executable.path, arguments, standardInput: standardInput, timeLimit: timeLimit, environment: environment)
    }

    /// Runs any program, capturing its output.
    ///
    /// - Parameter environment: Variables set (or replaced) in the program's environment, which
    ///   is otherwise this process's.
    static func runProgram(
        _ path: String, _ arguments: [String], standardInput: String? = nil, timeLimit: Duration? = nil,
        environment: [String: String] = [:]
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let input = Pipe()
        process.standardInput = input
        try process.run()
        // Returns whether it killed the process; cancelled (an error) once the process has exited.
        let processIdentifier = process.processIdentifier
        let watchdog = timeLimit.map { limit in
            Task.detached { () async throws -> Bool in
                try await Task.sleep(for: limit)
                return kill(processIdentifier, SIGKILL) == 0
            }
        }
        if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
        try input.fileHandleForWriting.close()
        async let out = BlockingCall.readToEnd(output.fileHandleForReading)
        async let err = BlockingCall.readToEnd(error.fileHandleForReading)
        let (outData, errData) = await (out, err)
        await BlockingCall.waitUntilExit(process)
        watchdog?.cancel()
        let timedOut = (try? await watchdog?.value) ?? false
        return Outcome(
            status: process.terminationStatus, standardOutputBytes: outData,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }
}

/// A temporary folder for one test, removed by `remove()`.
struct Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("HoardCommandTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The repository's `TestImages` folder.
let testImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TestImages")
