import ArgumentParser
import Foundation
import Hoard
import HoardServer
import HoardSystem
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle

/// `hoard serve`: an HTTP image server with the cache built in (see ``ImageServer``).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images over HTTP, from the cache or made once.",
        discussion: """
            Answers GET /<signature>/<options>/<source> (print paths with hoard url), /health, \
            /ready and /metrics (Prometheus). Signing keys and salts come from HOARD_SERVE_KEY and HOARD_SERVE_SALT (hex; \
            several pairs separated by commas: the first signs, all verify). Sources must match an \
            --allow-source prefix (or be local:/// files under --root) and resolve only to public \
            addresses unless --allow-addresses says otherwise; a prefix on a loopback host allows \
            that host's loopback address. SIGTERM and SIGINT stop accepting connections and let \
            requests in flight finish for up to --shutdown-grace seconds.

              hoard serve --bind 127.0.0.1:8080 --cache /var/cache/hoard --allow-source https://images.example/
            """)

    /// The cache's memory tier: room for tens of thousands of originals' records and marks.
    static let recordMemoryBytes = 8 << 20

    @Option(help: "Address and port to listen on, HOST:PORT ([::1]:PORT for IPv6; port 0 picks a free one).")
    var bind = "127.0.0.1:8080"
    @Option(help: "Serve /metrics on this HOST:PORT instead of beside the images (keep it off the public port).")
    var metricsBind: String?
    @OptionGroup var cacheOptions: CacheOptions
    @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions
    @Option(name: .customLong("allow-source"), help: "An allowed source URL prefix (repeatable).")
    var allowedSources: [String] = []
    @Option(help: "Serve local:///path sources from this folder.") var root: String?
    @Option(
        name: .customLong("allow-addresses"),
        help: "Also allow sources resolving to these address kinds: private, link-local, metadata, loopback, reserved (repeatable).")
    var allowedAddressKinds: [String] = []
    @Flag(help: "Serve /unsafe/ paths, which need no signature.") var allowUnsigned = false
    @Option(name: .customLong("preset"), help: "A preset, NAME=w:256/f:webp (repeatable); used as p:NAME or pr:NAME; one named default applies to every path.")
    var presets: [String] = []
    @Flag(help: "Refuse options other than p:NAME.") var presetsOnly = false
    @Option(help: "How w: with no height reads: hoard (a square box) or imgproxy (that width alone).")
    var urlStyle = "hoard"
    @Option(help: "The largest source in bytes.") var maxSourceBytes = 32 << 20
    @Option(help: "The most pixels a source may have.") var maxPixels = 64_000_000
    @Option(help: "Seconds a download from the origin may take, body included.") var timeout = 30.0
    @Option(help: "Decodes at once (default: the cores).") var decodeConcurrency: Int?
    @Option(help: "AVIF variants made at once, in places of their own (default: half the cores).")
    var avifConcurrency: Int?
    @Option(help: "Requests that may wait for a decode before the server answers 503 (and, per origin, for a download).")
    var queue = 16
    @Option(help: "Downloads from one origin (scheme, host and port) at once; others wait in its own queue.")
    var originConcurrency = 8
    @Option(help: "Cache-Control max-age of images, in seconds.") var maxAge = 86_400
    @Option(help: "MiB of answers kept in memory (0: none).") var memoryLimit = 256
    @Option(help: "Seconds requests in flight may take to finish after SIGTERM or SIGINT.") var shutdownGrace = 10.0
    @Option(help: "Seconds a connection may take to send a request's head (from its first byte, or its opening).")
    var headerTimeout = 60.0
    @Option(help: "Seconds a request's body may go without a byte arriving.") var bodyTimeout = 60.0
    @Option(help: "Seconds a connection may wait, idle, for its next request.") var keepAliveTimeout = 75.0
    @Option(help: "Seconds a response may wait for the client to take what it was sent.") var sendTimeout = 60.0
    @Option(
        help: """
            Connections open at once (default: 10000, or fewer when the descriptor limit, raised to \
            its hard limit at start, leaves less room). At the limit a new connection displaces the \
            longest idle one, or is closed when none is idle.
            """)
    var maxConnections: Int?

    func validate() throws {
        _ = try Self.address(bind)
        if let metricsBind { _ = try Self.address(metricsBind, option: "--metrics-bind") }
        for (name, value, range) in [
            ("--max-source-bytes", maxSourceBytes, 1...(1 << 34)), ("--max-pixels", maxPixels, 1...1_000_000_000),
            ("--queue", queue, 0...100_000), ("--origin-concurrency", originConcurrency, 1...1024), ("--max-age", maxAge, 0...(1 << 31)), ("--memory-limit", memoryLimit, 0...(1 << 20)),
        ] where !range.contains(value) {
            throw ValidationError("\(name) \(value) is not from \(range.lowerBound) to \(range.upperBound)")
        }
        if let decodeConcurrency, !(1...1024).contains(decodeConcurrency) {
            throw ValidationError("--decode-concurrency \(decodeConcurrency) is not from 1 to 1024")
        }
        if let avifConcurrency, !(1...1024).contains(avifConcurrency) {
            throw ValidationError("--avif-concurrency \(avifConcurrency) is not from 1 to 1024")
        }
        if let maxConnections, !(1...10_000_000).contains(maxConnections) {
            throw ValidationError("--max-connections \(maxConnections) is not from 1 to 10000000")
        }
        for (name, seconds) in [
            ("--timeout", timeout), ("--shutdown-grace", shutdownGrace), ("--header-timeout", headerTimeout),
            ("--body-timeout", bodyTimeout), ("--keep-alive-timeout", keepAliveTimeout), ("--send-timeout", sendTimeout),
        ]
        where !(seconds.isFinite && seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(name) \(seconds) is not a number of seconds from 0 to 86400")
        }
        _ = try serverConfiguration()
    }

    func run() async throws {
        let logger = ToolLogHandler.logger(label: "Hoard.serve", style: .server)
        let (host, port) = try Self.address(bind)
        let tier = try await remoteOptions.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis", style: .server))
        let registry = PrometheusCollectorRegistry()
        // The server keeps encoded answers in memory itself; the cache's memory tier holds decoded
        // values, which here are the originals' small records and marks, read on every request
        // that memory does not answer (variants' bytes never enter it).
        let hoard = try cacheOptions.openHoard(
            remote: tier, memoryBytes: Self.recordMemoryBytes, metricsFactory: PrometheusMetricsFactory(registry: registry),
            logger: ToolLogHandler.logger(style: .server))
        let server: ImageServer
        do {
            var configuration = try serverConfiguration()
            configuration.metricsRegistry = registry
            configuration.servesMetricsWithImages = metricsBind == nil
            if let tier, remoteOptions.remoteRequired {
                configuration.readinessCheck = {
                    do {
                        try await tier.checkReachable()
                        return nil
                    } catch {
                        return "the shared cache is required (--remote-required) and cannot be reached: \(error)"
                    }
                }
            }
            server = try ImageServer(
                hoard: hoard, originals: try cacheOptions.openOriginals(remote: tier, logger: ToolLogHandler.logger(style: .server)),
                configuration: configuration,
                logger: logger)
            if configuration.sources.prefixes.isEmpty && configuration.sources.localRoot == nil {
                logger.warning("neither --allow-source nor --root is given: every image request will be refused (403)")
            }
        } catch let error as ServeError {
            await tier?.shutdown()
            throw ValidationError(error.reason)
        } catch {
            await tier?.shutdown()
            throw error
        }
        let router = Router()
        server.addRoutes(to: router)
        let listening = ListeningFlag()
        let application = Application(
            router: router,
            server: server.http1Server(limits: connectionLimits(logger: logger), serverName: "hoard", logger: logger),
            configuration: .init(address: .hostname(host, port: port), serverName: "hoard"),
            onServerRunning: { channel in
                listening.set()
                let address = channel.localAddress.map { "\($0.ipAddress ?? host):\($0.port ?? port)" } ?? bind
                FileHandle.standardError.write(Data("hoard serve: listening on http://\(address)\n".utf8))
            },
            logger: logger)
        var services: [any Service] = [application]
        if let metricsBind {
            let (metricsHost, metricsPort) = try Self.address(metricsBind, option: "--metrics-bind")
            let metricsRouter = Router()
            server.addMetricsRoute(to: metricsRouter)
            services.append(
                Application(
                    router: metricsRouter,
                    configuration: .init(address: .hostname(metricsHost, port: metricsPort), serverName: "hoard"),
                    onServerRunning: { channel in
                        let address = channel.localAddress.map { "\($0.ipAddress ?? metricsHost):\($0.port ?? metricsPort)" }
                        FileHandle.standardError.write(
                            Data("hoard serve: metrics on http://\(address ?? metricsBind)/metrics\n".utf8))
                    },
                    logger: logger))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int64(shutdownGrace * 1000))
        do {
            // Requests are handled on the loop that read them (the application's loops are the
            // singleton group Hummingbird uses by default).
            try await withTaskExecutorPreference(EventLoopGroupExecutor(group: MultiThreadedEventLoopGroup.singleton)) {
                try await ServiceGroup(configuration: groupConfiguration).run()
            }
        } catch {
            try? await server.shutdown()
            await tier?.shutdown()
            if !listening.isSet {
                throw RunFailure("cannot listen on \(bind)\(metricsBind.map { " or \($0)" } ?? ""): \(Self.reason(error))")
            }
            throw RunFailure("the server stopped: \(error)")
        }
        try? await server.shutdown()
        await tier?.shutdown()
        FileHandle.standardError.write(Data("hoard serve: stopped\n".utf8))
    }

    /// A failure to listen, said as the system says it (`Address already in use`).
    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }

    /// The server's configuration from the options and the environment.
    private func serverConfiguration() throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var signer: URLSigner?
        if let keys = environment[URLSigner.keyVariable], !keys.isEmpty {
            do {
                signer = try URLSigner(keys: keys, salts: environment[URLSigner.saltVariable] ?? "")
            } catch {
                throw ValidationError("\(error)")
            }
        }
        var configuration = ServerConfiguration(signer: signer)
        configuration.allowsUnsigned = allowUnsigned
        configuration.presetsOnly = presetsOnly
        guard let style = ImagePath.Style(rawValue: urlStyle) else {
            throw ValidationError("--url-style \(urlStyle) is not hoard or imgproxy")
        }
        configuration.urlStyle = style
        for preset in presets {
            guard let equals = preset.firstIndex(of: "=") else {
                throw ValidationError("--preset \(preset) is not NAME=OPTIONS")
            }
            let options = preset[preset.index(after: equals)...].split(separator: "/").map(String.init)
            configuration.presets[String(preset[..<equals])] = options
        }
        var kinds: Set<IPAddress.Kind> = []
        for name in allowedAddressKinds {
            guard let kind = IPAddress.Kind(rawValue: name), kind != .global else {
                throw ValidationError("--allow-addresses \(name) is not private, link-local, metadata, loopback or reserved")
            }
            kinds.insert(kind)
        }
        do {
            configuration.sources = try SourcePolicy(
                allowing: allowedSources, localRoot: root.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
                allowedKinds: kinds)
        } catch {
            throw ValidationError("--allow-source: \(error.reason)")
        }
        configuration.maximumSourceBytes = maxSourceBytes
        configuration.maximumPixels = maxPixels
        configuration.requestTimeout = .milliseconds(Int64(timeout * 1000))
        if let decodeConcurrency { configuration.decodeConcurrency = decodeConcurrency }
        if let avifConcurrency { configuration.avifConcurrency = avifConcurrency }
        configuration.queueCapacity = queue
        configuration.originConcurrency = originConcurrency
        configuration.cacheMaxAge = maxAge
        configuration.memoryBytes = memoryLimit << 20
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.reason)
        }
        // Each preset must parse as options on its own.
        for name in configuration.presets.keys {
            do {
                _ = try ImagePath(parsing: "/unsafe/p:\(name)/plain/https://a.example/x", presets: configuration.presets)
            } catch {
                throw ValidationError("--preset \(name): \(error.reason)")
            }
        }
        return configuration
    }

    /// The connections' timeouts and limit, the limit within what the process's descriptors allow
    /// once their soft limit is raised to the hard one (both said in the log).
    private func connectionLimits(logger: Logger) -> ConnectionLimits {
        var limits = ConnectionLimits()
        limits.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        limits.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        limits.keepAliveTimeout = .milliseconds(Int64(keepAliveTimeout * 1000))
        limits.sendTimeout = .milliseconds(Int64(sendTimeout * 1000))
        let requested = maxConnections ?? limits.maximumConnections
        switch DescriptorLimit.raisingSoftLimitToHard() {
        case .success(let descriptors):
            let allowed = ConnectionLimits.connections(allowedBy: descriptors.soft)
            limits.maximumConnections = min(requested, allowed)
            var metadata: Logger.Metadata = [
                "descriptors": .stringConvertible(descriptors.soft), "connections": .stringConvertible(limits.maximumConnections),
            ]
            if descriptors.soft != descriptors.previousSoft {
                metadata["raised from"] = .stringConvertible(descriptors.previousSoft)
            }
            logger.info("open-file descriptor limit", metadata: metadata)
            if maxConnections.map({ $0 > allowed }) ?? false {
                logger.warning(
                    "--max-connections \(requested) is more than \(descriptors.soft) descriptors allow: serving at most \(allowed)")
            }
        case .failure(let error):
            limits.maximumConnections = min(requested, 768)
            logger.warning("cannot read the descriptor limit: \(error); serving at most \(limits.maximumConnections) connections")
        }
        return limits
    }

    /// `HOST:PORT` or `[IPv6]:PORT`, checked.
    static func address(_ text: String, option: String = "--bind") throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw ValidationError("\(option) \(text) is not HOST:PORT with a port from 0 to 65535") }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\(option) \(text) names no host") }
        return (host, port)
    }
}

/// A flag set once, from any thread.
private final class ListeningFlag: Sendable {
    private let value = Lock(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
