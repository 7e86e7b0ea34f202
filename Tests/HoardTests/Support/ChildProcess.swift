import Foundation
import HoardTestSupport
import Testing

/// The `HoardDiskStress` executable the process tests start (built with the package).
enum StressChild {
    /// The built executable, next to the test bundle.
    static let executableURL: URL? = BuiltProduct.url(named: "HoardDiskStress")

    /// The executable, or a recorded test failure saying how to build it.
    static func requireExecutable(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        try #require(
            executableURL,
            "HoardDiskStress is not built next to the tests: run `swift build` (all targets) before `swift test`",
            sourceLocation: sourceLocation)
    }

    /// Starts the child with `arguments`; its standard output goes to the returned pipe.
    static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = try requireExecutable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Runs the child to completion; returns its exit status and output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let (process, pipe) = try start(arguments)
        let output = await BlockingCall.readToEnd(pipe.fileHandleForReading)
        await BlockingCall.waitUntilExit(process)
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
