// Shared by the Swift harnesses: the pixel limit, options picked from the input, and a failure
// that libFuzzer records as a crash with the harness's reason on stderr.
import Foundation

enum FuzzSupport {
    /// `$HOARD_FUZZ_MAX_PIXELS`, else 16 MP: a quarter of the library's 64 MP default, so that a
    /// decompression bomb costs at most 64 MB of RGBA and executions stay fast.
    static let maximumPixelCount: Int = {
        if let text = ProcessInfo.processInfo.environment["HOARD_FUZZ_MAX_PIXELS"], let value = Int(text), value > 0 {
            return value
        }
        return 16_000_000
    }()

    /// FNV-1a over the bytes: the same input always gets the same options, so a crash reproduces.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    /// With `HOARD_FUZZ_WRITE_SEEDS=<folder>` in the environment, creates the folder, calls `write`
    /// to fill it with seed inputs, and exits: how Fuzz/run makes the seeds of harnesses whose inputs
    /// are best written by the library itself.
    static func writeSeedsIfAsked(_ write: (URL) throws -> Int) {
        guard let path = ProcessInfo.processInfo.environment["HOARD_FUZZ_WRITE_SEEDS"] else { return }
        let folder = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let count = try write(folder)
            print("wrote \(count) seeds to \(folder.path)")
            exit(0)
        } catch {
            fail("cannot write seeds to \(folder.path): \(error)")
        }
    }

    /// Stops the process with `reason`: libFuzzer saves the input as a crash.
    static func fail(_ reason: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("HARNESS CHECK FAILED (\(file):\(line)): \(reason)\n".utf8))
        abort()
    }

    static func check(
        _ condition: @autoclosure () -> Bool, _ reason: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        if !condition() { fail(reason(), file: file, line: line) }
    }
}
