// A redis-server child process for tests. Self-contained (Foundation and the C library only, no
// Hoard module), so that it can move to a shared test-support target as it is.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `redis-server` started by a test on a free loopback port, and stopped by it.
///
/// Runs without persistence (`--save '' --appendonly no`) in a temporary folder that holds its
/// log, bound to 127.0.0.1 only. ``start(_:)`` returns once the server answers (`PING`, or
/// accepts TLS connections when it has no plain port). The server can be paused (`SIGSTOP`,
/// to test deadlines), killed and restarted on the same ports (to test reconnecting).
///
/// ```swift
/// let server = try await RedisServer.start(.init(password: "secret", extraArguments: ["--maxmemory", "2mb"]))
/// defer { server.stop() }
/// print(server.port)
/// _ = try server.command(["ACL", "SETUSER", "reader", "on", ">pw", "~*", "+@all"])
/// ```
///
/// `redis-server` is looked up in `$HOARD_REDIS_SERVER`, then on `PATH` and in the usual
/// folders. Without it, tests should skip with ``unavailableMessage``, unless
/// `HOARD_REQUIRE_REDIS=1` (``isRequired``) makes that a failure.
public final class RedisServer: Sendable {
    /// TLS settings: redis-server's `--tls-*` options.
    public struct TLSOptions: Sendable, Hashable {
        /// The server's certificate (PEM).
        public var certificateFile: String
        /// Its private key (PEM).
        public var keyFile: String
        /// The CA certificates the server trusts for client certificates (PEM); redis-server
        /// requires one even when clients are not authenticated.
        public var caCertificateFile: String
        /// Whether clients must present a certificate (`--tls-auth-clients yes`).
        public var authenticatesClients: Bool
        /// Whether the server also listens on a plain port (``RedisServer/port``); otherwise it
        /// listens for TLS only (`--port 0`).
        public var keepsPlainPort: Bool

        /// TLS with the given files.
        ///
        /// - Parameters:
        ///   - certificateFile: The server's certificate.
        ///   - keyFile: Its private key.
        ///   - caCertificateFile: The CA file; the certificate itself when self-signed.
        ///   - authenticatesClients: Whether clients need certificates.
        ///   - keepsPlainPort: Whether to listen on a plain port too.
        public init(
            certificateFile: String, keyFile: String, caCertificateFile: String, authenticatesClients: Bool = false,
            keepsPlainPort: Bool = false
        ) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caCertificateFile = caCertificateFile
            self.authenticatesClients = authenticatesClients
            self.keepsPlainPort = keepsPlainPort
        }
    }

    /// How to start the server.
    public struct Options: Sendable, Hashable {
        /// The default user's password (`--requirepass`); also what ``RedisServer/command(_:)``
        /// authenticates with.
        public var password: String?
        /// TLS, or `nil` for plain TCP only.
        public var tls: TLSOptions?
        /// More arguments, e.g. `["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"]`.
        public var extraArguments: [String]
        /// How long the server may take to answer after it is launched.
        public var startTimeout: Duration

        /// Options for a server with the given settings.
        ///
        /// - Parameters:
        ///   - password: The default user's password, or `nil`.
        ///   - tls: TLS settings, or `nil`.
        ///   - extraArguments: More redis-server arguments.
        ///   - startTimeout: How long to wait for the server to answer.
        public init(
            password: String? = nil, tls: TLSOptions? = nil, extraArguments: [String] = [],
            startTimeout: Duration = .seconds(60)
        ) {
            self.password = password
            self.tls = tls
            self.extraArguments = extraArguments
            self.startTimeout = startTimeout
        }
    }

    /// Why a server could not be started or talked to.
    public enum Failure: Error, CustomStringConvertible {
        /// No redis-server executable in any of `searched`.
        case executableNotFound(searched: [String])
        /// The server did not come up: `reason`, and the end of its log.
        case didNotStart(reason: String, log: String)
        /// An admin command could not be sent or answered.
        case commandFailed(command: String, reason: String)

        public var description: String {
            switch self {
            case .executableNotFound(let searched):
                "redis-server not found (looked for \(searched.joined(separator: ", ")))"
            case .didNotStart(let reason, let log):
                "redis-server did not start: \(reason)\n--- its log ---\n\(log)"
            case .commandFailed(let command, let reason):
                "redis-server command \(command) failed: \(reason)"
            }
        }
    }

    /// The environment variable naming the redis-server executable to use.
    public static let executableVariable = "HOARD_REDIS_SERVER"
    /// The environment variable that, set to `1`, turns a missing redis-server into a failure.
    public static let requireVariable = "HOARD_REQUIRE_REDIS"

    /// The redis-server executable: `$HOARD_REDIS_SERVER`, else the first found on `PATH`,
    /// in /usr/bin, /usr/local/bin, /opt/homebrew/bin; `nil` when there is none.
    public static let executablePath: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[executableVariable], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        return searchFolders.map { $0 + "/redis-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether `HOARD_REQUIRE_REDIS=1`: tests must fail, not skip, without redis-server.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment[requireVariable] == "1" }

    /// Whether tests that need a server should run: it exists, or it is required (and its
    /// absence will fail them).
    public static var shouldRunTests: Bool { executablePath != nil || isRequired }

    /// What a skipped test says.
    public static let unavailableMessage =
        "redis-server not found: install it (apt-get install redis-server) or set \(executableVariable); "
        + "set \(requireVariable)=1 to fail instead of skipping"

    private static var searchFolders: [String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var folders: [String] = []
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        where !folders.contains(folder) {
            folders.append(folder)
        }
        return folders
    }

    /// Where ``executablePath`` looked: `$HOARD_REDIS_SERVER` alone when set, else the folders.
    private static var searchedPaths: [String] {
        if let path = ProcessInfo.processInfo.environment[executableVariable], !path.isEmpty {
            return ["\(path) ($\(executableVariable))"]
        }
        return searchFolders.map { $0 + "/redis-server" }
    }

    /// The options it was started with.
    public let options: Options
    /// The plain TCP port on 127.0.0.1; 0 for a TLS-only server.
    public let port: Int
    /// The TLS port, when TLS is on.
    public let tlsPort: Int?
    /// The server's folder: its log and working directory.
    public let folder: URL
    private let executable: String
    private let process: Mutex<RedisServerProcess?>

    private init(options: Options, port: Int, tlsPort: Int?, folder: URL, executable: String) {
        self.options = options
        self.port = port
        self.tlsPort = tlsPort
        self.folder = folder
        self.executable = executable
        self.process = Mutex(nil)
    }

    deinit {
        stop()
    }

    /// Starts a server on free loopback ports and waits until it answers.
    ///
    /// - Parameter options: Password, TLS, extra arguments.
    /// - Returns: The running server; call ``stop()`` when done.
    /// - Throws: ``Failure/executableNotFound(searched:)``; ``Failure/didNotStart(reason:log:)``
    ///   with the server's log when it exits or does not answer in time (three tries, in case
    ///   another process takes a port in between).
    public static func start(_ options: Options = Options()) async throws -> RedisServer {
        guard let executable = executablePath else { throw Failure.executableNotFound(searched: searchedPaths) }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hoard-redis-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let plainPort = options.tls == nil || options.tls?.keepsPlainPort == true ? try freePort() : 0
            let tlsPort = options.tls == nil ? nil : try freePort()
            let server = RedisServer(
                options: options, port: plainPort, tlsPort: tlsPort, folder: folder, executable: executable)
            do {
                try await server.launch()
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError ?? Failure.didNotStart(reason: "unknown", log: "")
    }

    /// The process identifier of the running server; 0 when it is not running.
    public var processIdentifier: Int32 {
        process.withLock { $0?.hasExited == false ? $0?.identifier ?? 0 : 0 }
    }

    /// Pauses the server (`SIGSTOP`): it keeps its connections and accepts new ones (the kernel
    /// completes the handshake) but answers nothing until ``resume()``.
    public func pause() {
        deliver(SIGSTOP)
    }

    /// Resumes a paused server (`SIGCONT`).
    public func resume() {
        deliver(SIGCONT)
    }

    /// Kills the server at once (`SIGKILL`) and waits for it to exit; its ports are closed.
    public func kill() {
        let running = process.withLock { process -> RedisServerProcess? in
            defer { process = nil }
            return process
        }
        guard let running else { return }
        running.signal(SIGKILL)
        _ = running.waitForExit(timeout: .seconds(30))
    }

    /// Starts the server again on the same ports (after ``kill()``), and waits until it answers.
    ///
    /// - Throws: ``Failure/didNotStart(reason:log:)``: for example when another process took the
    ///   port meanwhile.
    public func restart() async throws {
        kill()
        try await launch()
    }

    /// Stops the server: `SIGCONT` (in case it is paused), `SIGTERM`, and `SIGKILL` if it has
    /// not exited within 5 seconds; then removes its folder. Safe to call more than once, and
    /// from `defer`.
    public func stop() {
        let running = process.withLock { process -> RedisServerProcess? in
            defer { process = nil }
            return process
        }
        if let running {
            running.signal(SIGCONT)
            running.signal(SIGTERM)
            if !running.waitForExit(timeout: .seconds(5)) {
                running.signal(SIGKILL)
                _ = running.waitForExit(timeout: .seconds(30))
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The server's log so far (its standard output and error).
    public var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
    }

    /// Sends one command on a new plain connection (authenticated with the options' password)
    /// and returns the reply as text: a status (`"+OK"`), an error (`"-ERR ..."`), an integer
    /// (`":1"`), a bulk string's contents, `"(nil)"`, or an array's elements one per line.
    ///
    /// For setting a server up (`ACL SETUSER`, `CONFIG SET`, `DEBUG SLEEP`) independently of
    /// the client under test.
    ///
    /// - Parameter arguments: The command and its arguments.
    /// - Returns: The reply as text.
    /// - Throws: ``Failure/commandFailed(command:reason:)`` when the server has no plain port,
    ///   cannot be reached or does not answer within 10 seconds.
    public func command(_ arguments: [String]) throws -> String {
        let name = arguments.first ?? ""
        guard port != 0 else { throw Failure.commandFailed(command: name, reason: "the server has no plain port") }
        let socket = try Self.connectedSocket(port: port, timeoutSeconds: 10)
        defer { close(socket) }
        var request: [[String]] = []
        if let password = options.password { request.append(["AUTH", password]) }
        request.append(arguments)
        var bytes: [UInt8] = []
        for command in request {
            bytes += Array("*\(command.count)\r\n".utf8)
            for argument in command { bytes += Array("$\(argument.utf8.count)\r\n\(argument)\r\n".utf8) }
        }
        guard Self.writeAll(socket, bytes) else {
            throw Failure.commandFailed(command: name, reason: "write failed: \(String(cString: strerror(errno)))")
        }
        var reader = ReplyReader(socket: socket)
        if options.password != nil {
            let authentication = try reader.reply(command: "AUTH")
            guard authentication == "+OK" else { throw Failure.commandFailed(command: "AUTH", reason: authentication) }
        }
        return try reader.reply(command: name)
    }

    // MARK: - Launching

    private var arguments: [String] {
        var arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--dir", folder.path, "--logfile", "",
        ]
        if let password = options.password { arguments += ["--requirepass", password] }
        if let tls = options.tls, let tlsPort {
            arguments += [
                "--tls-port", "\(tlsPort)", "--tls-cert-file", tls.certificateFile, "--tls-key-file", tls.keyFile,
                "--tls-ca-cert-file", tls.caCertificateFile, "--tls-auth-clients",
                tls.authenticatesClients ? "yes" : "no",
            ]
        }
        return arguments + options.extraArguments
    }

    private func launch() async throws {
        let launched = try RedisServerProcess.spawn(
            executable: executable, arguments: arguments, logPath: folder.appendingPathComponent("redis.log").path)
        process.withLock { $0 = launched }

        let deadline = ContinuousClock.now + options.startTimeout
        while ContinuousClock.now < deadline {
            if let status = launched.exitStatus {
                throw Failure.didNotStart(reason: "it exited (wait status \(status))", log: log)
            }
            if isAnswering() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure.didNotStart(reason: "it did not answer within \(options.startTimeout)", log: log)
    }

    /// Whether the server answers `PING` on its plain port (any reply: `-NOAUTH` counts), or,
    /// without one, accepts a connection on its TLS port.
    private func isAnswering() -> Bool {
        guard port != 0 else {
            guard let tlsPort, let socket = try? Self.connectedSocket(port: tlsPort, timeoutSeconds: 1) else {
                return false
            }
            close(socket)
            return true
        }
        guard let socket = try? Self.connectedSocket(port: port, timeoutSeconds: 1) else { return false }
        defer { close(socket) }
        guard Self.writeAll(socket, Array("*1\r\n$4\r\nPING\r\n".utf8)) else { return false }
        var byte: UInt8 = 0
        return read(socket, &byte, 1) == 1 && (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-"))
    }

    private func deliver(_ signal: Int32) {
        process.withLock { $0?.signal(signal) }
    }
}
