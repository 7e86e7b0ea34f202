import Foundation
import Testing

/// Every numeric option of every subcommand refuses 0 (where it means nothing), negative, huge,
/// infinite and NaN values with exit status 64 and a message naming the option, instead of
/// trapping on a conversion or an overflow; the ends of each documented range are accepted.
@Suite("hoard numeric options")
struct NumericOptionTests {
    /// One bad value of one option: the subcommand's words before it.
    struct Case: Sendable, CustomTestStringConvertible {
        let command: [String]
        let option: String
        let value: String
        var testDescription: String { "\(command.joined(separator: " ")) \(option)=\(value)" }
    }

    static let huge = ["9223372036854775807", "1.7976931348623157e308", "inf", "-inf", "nan"]
    static let thumbnails = ["thumbnails"]
    static let stats = ["cache", "stats"]

    static let badValues: [Case] =
        [
            ("--size", ["0", "-1", "1000001"]),
            ("--quality", ["0", "-1", "101"]),
            ("--concurrency", ["0", "-1", "1025"]),
            ("--timeout", ["0", "-1", "1e-9", "0.0009", "86400.5", "1e16", "1e300"]),
            ("--max-download-bytes", ["0", "-1", "4294967297"]),
            ("--max-redirects", ["-1", "101"]),
            ("--max-folder-entries", ["0", "-1", "1000000001"]),
            ("--cache-limit", ["0", "-1", "8796093022208"]),
            ("--max-pixels", ["0", "-1", "4294967297"]),
            ("--originals-limit", ["-1", "1024"]),
        ].flatMap { option, values in
            (values + huge).map { Case(command: thumbnails, option: option, value: $0) }
        } + (["0", "-1", "8796093022208"] + huge).map { Case(command: stats, option: "--cache-limit", value: $0) }

    /// The arguments that make `command` valid apart from the option under test.
    static func arguments(for command: [String], scratch: Scratch) -> [String] {
        guard command == thumbnails else { return command + ["--cache", scratch.path("cache")] }
        return command + [
            testImages.appendingPathComponent("PngSuite/basn2c08.png").path, "--size", "8",
            "--output", scratch.path("out"), "--cache", scratch.path("cache"),
        ]
    }

    @Test("a bad value exits 64 and the message names the option and the value", arguments: badValues)
    func badValue(_ bad: Case) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // `--option=value`: a separate "-1" would be read as an unknown option, not reach the check.
        // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
        let outcome = try await HoardTool.run(
            Self.arguments(for: bad.command, scratch: scratch) + ["\(bad.option)=\(bad.value)"],
            timeLimit: .seconds(120))
        #expect(outcome.status == 64, "\(outcome.standardError)")
        let message = outcome.standardError
        #expect(message.contains(bad.option), "\(message)")
        // As typed, or as the Double it parsed to ("1e16" is printed 1e+16).
        let parsed = Double(bad.value).map { "\($0)" } ?? bad.value
        #expect(message.contains(bad.value) || message.contains(parsed), "\(message)")
        #expect(!message.contains("Fatal error") && !message.contains("Crash"))
    }

    @Test(
        "the ends of each range are accepted",
        arguments: [
            ("--size", "1"), ("--size", "1000000"), ("--quality", "1"), ("--quality", "100"),
            ("--concurrency", "1"), ("--concurrency", "1024"), ("--timeout", "0.001"), ("--timeout", "86400"),
            ("--max-download-bytes", "4294967296"), ("--max-redirects", "0"), ("--max-redirects", "100"),
            ("--max-folder-entries", "1"), ("--max-folder-entries", "1000000000"), ("--cache-limit", "1"),
            ("--cache-limit", "8796093022207"),
        ])
    func goodValue(_ option: String, _ value: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outcome = try await HoardTool.run(
            Self.arguments(for: Self.thumbnails, scratch: scratch) + ["\(option)=\(value)", "--json"],
            timeLimit: .seconds(60))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try outcome.summary()["made"] as? Int == 1)
    }

    @Test("cache stats accepts the ends of --cache-limit and reports the limit in bytes without overflow")
    func cacheLimitEnds() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // stats reads an existing cache; it makes none.
        try FileManager.default.createDirectory(atPath: scratch.path("cache"), withIntermediateDirectories: true)
        for (mebibytes, bytes) in [("1", "1048576"), ("8796093022207", "9223372036853727232")] {
            let outcome = try await HoardTool.run(
                Self.arguments(for: Self.stats, scratch: scratch) + ["--cache-limit", mebibytes])
            #expect(outcome.status == 0, "\(outcome.standardError)")
            #expect(
                outcome.standardOutput.contains("(\(bytes) bytes, --cache-limit \(mebibytes) MiB)"),
                "\(outcome.standardOutput)")
        }
    }

    @Test("the help states each numeric option's range")
    func helpStatesRanges() async throws {
        // Words joined by single spaces, whatever the help's line wrapping.
        let help = try await HoardTool.run(["thumbnails", "--help"]).standardOutput
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for range in [
            "1-1000000", "1-100", "1-1024", "0.001-86400", "1-4294967296", "0-100", "1-1000000000",
            "1-8796093022207",
        ] {
            #expect(help.contains(range), "\(range) not in the help")
        }
        #expect(help.contains("The largest original accepted, downloaded or local"))
    }
}
