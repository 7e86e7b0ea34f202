import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Local inputs: only regular files are read, never more than `--max-download-bytes`, and nothing
/// (a device, a FIFO, a socket) can make a run grow without bound or block.
@Suite("hoard thumbnails local inputs")
struct LocalInputTests {
    static let imagePath = testImages.appendingPathComponent("PngSuite/basn2c08.png").path

    /// The special files of one test: a FIFO and a socket in `scratch`, and `/dev/zero`.
    struct Specials {
        let fifo: String
        let socketPath: String
        let device = "/dev/zero"

        init(in scratch: Scratch) throws {
            fifo = scratch.path("fifo.jpg")
            socketPath = scratch.path("socket.jpg")
            #expect(mkfifo(fifo, 0o644) == 0, "mkfifo: \(errno)")
            try Self.bindSocket(at: socketPath)
        }

        /// Binds an `AF_UNIX` socket to `path`, then closes it: the socket file stays.
        static func bindSocket(at path: String) throws {
            guard Array(path.utf8).count < 100 else { throw CocoaError(.fileWriteInvalidFileName) }
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            #expect(descriptor >= 0, "socket: \(errno)")
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
                buffer[bytes.count] = 0
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0, "bind: \(errno)")
        }

        /// Each special file and what the tool must call it.
        var cases: [(path: String, kind: String)] {
            [(device, "a character device"), (fifo, "a FIFO"), (socketPath, "a socket")]
        }
    }

    static func arguments(_ scratch: Scratch) -> [String] {
        ["--size", "8", "--output", scratch.path("out"), "--cache", scratch.path("cache"), "--json"]
    }

    static func results(_ outcome: HoardTool.Outcome) throws -> [[String: Any]] {
        try outcome.summary()["results"] as? [[String: Any]] ?? []
    }

    @Test("a device, a FIFO or a socket, named directly or through a link, fails at once with what it is")
    func specialFilesFailFast() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let specials = try Specials(in: scratch)
        for (path, kind) in specials.cases {
            let link = scratch.path("link-to-\(URL(fileURLWithPath: path).lastPathComponent).jpg")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            for input in [path, link] {
                // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
                let outcome = try await HoardTool.run(
                    ["thumbnails", input] + Self.arguments(scratch), timeLimit: .seconds(120))
                #expect(!outcome.timedOut, "\(input) hung")
                #expect(outcome.status == 1, "\(input)")
                let error = try Self.results(outcome).first?["error"] as? String
                #expect(error == "cannot read \(input): is \(kind), not a regular file", "\(error ?? "no error")")
            }
        }
    }

    @Test("--list naming a FIFO or /dev/zero fails at once")
    func specialList() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let specials = try Specials(in: scratch)
        for (path, kind) in [(specials.fifo, "a FIFO"), (specials.device, "a character device")] {
            // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
            let outcome = try await HoardTool.run(
                ["thumbnails", "--list", path] + Self.arguments(scratch), timeLimit: .seconds(120))
            #expect(!outcome.timedOut && outcome.status == 1)
            #expect(
                outcome.standardError.contains("cannot read the list \(path): is \(kind), not a regular file"),
                "\(outcome.standardError)")
        }
    }

    @Test("a folder walk skips devices, FIFOs, sockets and links to them; it keeps links to regular files")
    func folderWalkSkipsSpecials() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let specials = try Specials(in: scratch)
        let folder = scratch.path("in")
        let files = FileManager.default
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try files.copyItem(atPath: Self.imagePath, toPath: folder + "/real.png")
        try files.createSymbolicLink(atPath: folder + "/linked.png", withDestinationPath: folder + "/real.png")
        for (path, _) in specials.cases {
            let name = URL(fileURLWithPath: path).lastPathComponent
            try files.createSymbolicLink(atPath: folder + "/link-\(name).jpg", withDestinationPath: path)
        }
        try files.createSymbolicLink(atPath: folder + "/dangling.jpg", withDestinationPath: folder + "/gone.jpg")
        #expect(mkfifo(folder + "/inner-fifo.png", 0o644) == 0)
        try Specials.bindSocket(at: folder + "/inner-socket.jpeg")
        // A watchdog only (it fires on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
        let outcome = try await HoardTool.run(["thumbnails", folder] + Self.arguments(scratch), timeLimit: .seconds(120))
        #expect(!outcome.timedOut)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let inputs = try Self.results(outcome).compactMap { $0["input"] as? String }
        #expect(inputs == [folder + "/linked.png", folder + "/real.png"])
    }

    @Test("--max-download-bytes caps local originals: a larger file is refused before it is read")
    func sizeCap() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let size = try #require(FileManager.default.attributesOfItem(atPath: Self.imagePath)[.size] as? Int)
        let refused = try await HoardTool.run(
            ["thumbnails", Self.imagePath, "--max-download-bytes", "\(size - 1)"] + Self.arguments(scratch))
        #expect(refused.status == 1)
        let error = try Self.results(refused).first?["error"] as? String
        #expect(
            error
                == "cannot read \(Self.imagePath): is \(size) bytes, larger than the limit of \(size - 1) bytes (--max-download-bytes)"
        )
        let tiny = try await HoardTool.run(
            ["thumbnails", Self.imagePath, "--max-download-bytes", "1"] + Self.arguments(scratch))
        #expect(tiny.status == 1)
        let accepted = try await HoardTool.run(
            ["thumbnails", Self.imagePath, "--max-download-bytes", "\(size)"] + Self.arguments(scratch))
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(try accepted.summary()["made"] as? Int == 1)
    }

    /// `setpriv`, to run the tool as `nobody` when the tests run as root (who can read any file).
    static let setpriv = "/usr/bin/setpriv"
    static let canBeUnprivileged = geteuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv)

    @Test(
        "an unreadable file fails with open's error, named directly or found in a folder through a link",
        .enabled(if: canBeUnprivileged, "running as root without /usr/bin/setpriv: root can read a mode-000 file"))
    func unreadableFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let files = FileManager.default
        let secret = scratch.path("secret.png")
        try files.copyItem(atPath: Self.imagePath, toPath: secret)
        try files.setAttributes([.posixPermissions: 0o000], ofItemAtPath: secret)
        let folder = scratch.path("in")
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try files.copyItem(atPath: Self.imagePath, toPath: folder + "/real.png")
        try files.createSymbolicLink(atPath: folder + "/secret-link.png", withDestinationPath: secret)
        // Writable by whoever runs the tool (nobody, below, when the tests run as root).
        for writable in ["out", "cache"] {
            try files.createDirectory(
                atPath: scratch.path(writable), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o777])
        }
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.url.path)
        let arguments = ["thumbnails", secret, folder] + Self.arguments(scratch)
        let outcome: HoardTool.Outcome
        // Watchdogs only (they fire on a hang); a loaded 2-core machine may stall the tool for tens of seconds.
        if geteuid() == 0 {
            let tool = try #require(HoardTool.executablePath)
            outcome = try await HoardTool.runProgram(
                Self.setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + arguments,
                timeLimit: .seconds(120))
        } else {
            outcome = try await HoardTool.run(arguments, timeLimit: .seconds(120))
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let results = try Self.results(outcome)
        let errors = Dictionary(
            results.map { ($0["input"] as? String ?? "", $0["error"] as? String ?? "made") },
            uniquingKeysWith: { first, _ in first })
        let link = folder + "/secret-link.png"
        #expect(errors[secret] == "cannot read \(secret): open failed: Permission denied")
        #expect(errors[link] == "cannot read \(link): open failed: Permission denied")
        #expect(errors[folder + "/real.png"] == "made")
        #expect(results.count == 3)
    }
}
