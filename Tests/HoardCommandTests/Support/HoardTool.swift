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

        /// The `--json` summary.
        func summary() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(standardOutput.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(standardOutput)")
        }
    }

    static func run(
        _ arguments: [String], standardInput: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        guard let executable = BuiltProduct.url(named: "hoard") else {
            Issue.record(
                "the hoard tool is not built next to the tests: run `swift build --build-tests` first",
                sourceLocation: sourceLocation)
            throw CocoaError(.fileNoSuchFile)
        }
        return try await runProgram(executable.path, arguments, standardInput: standardInput)
    }

    /// Runs any program, capturing its output.
    static func runProgram(_ path: String, _ arguments: [String], standardInput: String? = nil) async throws -> Outcome
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
        try input.fileHandleForWriting.close()
        async let out = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        async let err = Task.detached { error.fileHandleForReading.readDataToEndOfFile() }.value
        let (outData, errData) = await (out, err)
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, standardOutputBytes: outData,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
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
