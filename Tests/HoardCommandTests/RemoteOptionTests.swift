import Foundation
import Testing

/// The shared-cache options (`--remote` and friends) are checked before anything runs: a bad
/// value exits 64 naming the option, a password never comes from the command line and is never
/// printed, and an unreachable server is fatal only with `--remote-required`. No Redis needed.
@Suite("hoard --remote options")
struct RemoteOptionTests {
    /// One bad use of the options, and what the message must name.
    struct Case: Sendable, CustomTestStringConvertible {
        let options: [String]
        let named: String
        var testDescription: String { options.joined(separator: " ") }
    }

    static let badCases: [Case] =
        [
            "http://127.0.0.1:6379", "redis://", "redis://127.0.0.1:port", "redis://127.0.0.1:6379/db",
            "redis://127.0.0.1:6379?x=1", "127.0.0.1:6379",
        ].map { Case(options: ["--remote", $0], named: "--remote") }
        + ["0", "-1", "nan", "inf", "-inf", "1e308", "0.0009", "3600.5"].map {
            Case(options: ["--remote", "redis://127.0.0.1:6379", "--remote-timeout=\($0)"], named: "--remote-timeout")
        }
        + ["", "a b", "x/y", "ü", String(repeating: "n", count: 129)].map {
            Case(
                options: ["--remote", "redis://127.0.0.1:6379", "--remote-namespace=\($0)"], named: "--remote-namespace"
            )
        }
        + [
            Case(options: ["--remote-required"], named: "--remote-required"),
            Case(options: ["--remote", "redis://alice@127.0.0.1:6379"], named: "HOARD_REMOTE_PASSWORD"),
        ]

    /// `thumbnails` and `cache stats`, valid apart from the options under test.
    static func commands(_ scratch: Scratch) -> [[String]] {
        [
            [
                "thumbnails", testImages.appendingPathComponent("PngSuite/basn2c08.png").path, "--size", "8",
                "--output", scratch.path("out"), "--cache", scratch.path("cache"),
            ],
            ["cache", "stats", "--cache", scratch.path("cache")],
        ]
    }

    @Test(
        "a bad URL, timeout or namespace, or --remote-required without a server, exits 64 naming the option",
        arguments: badCases)
    func badValue(_ bad: Case) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for command in Self.commands(scratch) {
            let outcome = try await HoardTool.run(
                command + bad.options, timeLimit: .seconds(120),
                environment: ["HOARD_REMOTE": "", "HOARD_REMOTE_PASSWORD": ""])
            #expect(outcome.status == 64, "\(command.prefix(2)): \(outcome.standardError)")
            #expect(outcome.standardError.contains(bad.named), "\(outcome.standardError)")
            #expect(!outcome.standardError.contains("Fatal error"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "nothing ran")
    }

    @Test("a password in a --remote URL is refused (64) without being printed; HOARD_REMOTE_PASSWORD is the way")
    func passwordOnCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for url in ["redis://:hunter2-secret@127.0.0.1:6379", "rediss://alice:hunter2-secret@127.0.0.1:6380/2"] {
            for command in Self.commands(scratch) {
                let outcome = try await HoardTool.run(command + ["--remote", url], timeLimit: .seconds(120))
                #expect(outcome.status == 64, "\(outcome.standardError)")
                #expect(outcome.standardError.contains("HOARD_REMOTE_PASSWORD"), "\(outcome.standardError)")
                #expect(
                    !(outcome.standardOutput + outcome.standardError).contains("hunter2"), "\(outcome.standardError)")
            }
        }
    }

    @Test("--remote-required with nothing listening exits 1 naming the server; without it the run goes on locally")
    func requiredButUnreachable() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let port = try await ThumbnailsCommandTests.closedPort()
        let remote = ["--remote", "redis://127.0.0.1:\(port)", "--remote-timeout", "1"]
        let password = ["HOARD_REMOTE_PASSWORD": "hunter2-secret"]
        for command in Self.commands(scratch) {
            let outcome = try await HoardTool.run(
                command + remote + ["--remote-required"], timeLimit: .seconds(120), environment: password)
            #expect(outcome.status == 1, "\(outcome.standardError)")
            #expect(outcome.standardError.contains("--remote-required"), "\(outcome.standardError)")
            #expect(outcome.standardError.contains("127.0.0.1:\(port)"), "names the server: \(outcome.standardError)")
            #expect(!(outcome.standardOutput + outcome.standardError).contains("hunter2"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "nothing was written")

        let local = try await HoardTool.run(
            Self.commands(scratch)[0] + remote + ["--json"], timeLimit: .seconds(120), environment: password)
        #expect(local.status == 0, "\(local.standardError)")
        let summary = try local.summary()
        #expect(summary["made"] as? Int == 1)
        #expect(summary["remoteHits"] as? Int == 0 && (summary["remoteErrors"] as? Int ?? 0) > 0, "\(summary)")
        #expect(local.standardError.contains("remote:     0 hits"), "\(local.standardError)")
        #expect(!(local.standardOutput + local.standardError).contains("hunter2"))
    }

    @Test("without a remote, the JSON summary says 0 for the remote counts and the summary has no remote line")
    func withoutRemote() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outcome = try await HoardTool.run(
            Self.commands(scratch)[0] + ["--json"], timeLimit: .seconds(120), environment: ["HOARD_REMOTE": ""])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let summary = try outcome.summary()
        for field in ["remoteHits", "remoteWaits", "remoteErrors"] {
            #expect(summary[field] as? Int == 0, "\(field): \(summary)")
        }
        #expect(!outcome.standardError.contains("remote:"), "\(outcome.standardError)")
        let stats = try await HoardTool.run(
            ["cache", "stats", "--cache", scratch.path("cache")], environment: ["HOARD_REMOTE": ""])
        #expect(stats.status == 0 && !stats.standardOutput.contains("remote:"), "\(stats.standardOutput)")
    }

    @Test("the help of thumbnails and cache stats describes the shared-cache options")
    func help() async throws {
        for command in [["thumbnails"], ["cache", "stats"]] {
            let help = try await HoardTool.run(command + ["--help"]).standardOutput
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for text in [
                "--remote <URL>", "HOARD_REMOTE", "HOARD_REMOTE_PASSWORD", "--remote-namespace", "0.001-3600",
                "--remote-required",
            ] {
                #expect(help.contains(text), "\(command): \(text) not in the help")
            }
        }
    }
}
