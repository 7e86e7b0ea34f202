import Foundation
import HoardTestSupport
import Testing

@testable import HoardCore
@testable import HoardImage

/// Every limit, ratio, interval, URL, quality, size and expiry a caller can pass is checked: a bad
/// one is refused with a typed error that names the field and the value, and nothing traps.
@Suite("Bad values")
struct BadValueTests {
    @Test("each entry point refuses its bad value with an error naming the field and the value", arguments: BadValueCases.all)
    func refused(_ badCase: BadValueCases.Case) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let error = await badCase.call(folder.cacheURL)
        let description = try #require(error.map { String(describing: $0) }, "accepted: \(badCase.name)")
        #expect(description.contains(badCase.field), "\(description)")
        #expect(description.contains(badCase.value), "\(description)")
        // Typed: the library's own error types, never a stray Foundation or Swift error.
        #expect(
            error is HoardError || error is DiskCacheError || error is ImageError || error is InvalidValueError
                || error is ThumbnailKeyError)
        // And nothing was made in the folder for a configuration that was refused.
        if badCase.name.contains("Configuration") {
            #expect(!FileManager.default.fileExists(atPath: folder.cacheURL.path(percentEncoded: false)))
        }
    }

    @Test("a child process calling all of them with bad values exits normally, each refused")
    func noneTraps() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (status, output) = try await StressChild.run(["bad-values", folder.path])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines == BadValueCases.all.map { "refused \($0.name)" })
    }
}
