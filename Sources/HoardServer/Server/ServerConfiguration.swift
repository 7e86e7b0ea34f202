import Foundation
import Prometheus

/// What an ``ImageServer`` accepts and how much it spends: signatures, presets, sources, limits
/// and the responses' caching.
///
/// ```swift
/// var configuration = ServerConfiguration(signer: try URLSigner(keys: key, salts: salt))
/// configuration.sources = try SourcePolicy(allowing: ["https://images.example/"])
/// ```
public struct ServerConfiguration: Sendable {
    /// Checks signatures; `nil` serves unsigned URLs only (then ``allowsUnsigned`` must be set).
    public var signer: URLSigner?
    /// Whether `/unsafe/…` paths are served. Off by default.
    public var allowsUnsigned = false
    /// Named option lists for `p:NAME`.
    public var presets: [String: [String]] = [:]
    /// Whether options other than presets are refused.
    public var presetsOnly = false
    /// How a width given with no height reads: a square box (Hoard's) or that width alone (imgproxy's).
    public var urlStyle = ImagePath.Style.hoard
    /// The sources the server may read; none by default.
    public var sources: SourcePolicy
    /// The largest source, in bytes (413 beyond). 32 MiB by default.
    public var maximumSourceBytes = 32 << 20
    /// The most pixels a source may declare and a decode allocate (413 beyond). 64 million by default.
    public var maximumPixels = 64_000_000
    /// How long a download from the origin may take, body included (504 past it).
    public var requestTimeout: Duration = .seconds(30)
    /// Redirects followed per source, each checked as the source is.
    public var maximumRedirects = 5
    /// Decodes run at once, 1 to 1,024; the machine's cores by default.
    public var decodeConcurrency = min(1024, max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// AVIF variants made at once, in places of their own (default: half the cores, at least 1):
    /// an AVIF encode takes several times a JPEG's, and JPEG and WebP requests never wait behind them.
    public var avifConcurrency = min(1024, max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
    /// Requests that may wait for a decode before the server answers 503, up to 1,000,000. 16 by
    /// default. Each origin has a queue of this length too, for its downloads.
    public var queueCapacity = 16
    /// Downloads and revalidations at once per origin (scheme, host and port), 1 to 1,024; 8 by
    /// default (AsyncHTTPClient's connections per host). Waiting on an origin never holds a decode
    /// place, and a local file never waits behind an origin.
    public var originConcurrency = 8
    /// `Cache-Control: max-age` of images, in seconds. One day by default.
    public var cacheMaxAge = 86_400
    /// Bytes of answers kept in memory (least recently used go first, each for at most a
    /// minute); 0 keeps none. 256 MiB by default.
    public var memoryBytes = 256 << 20
    /// Where the server's metrics go; with one, `GET /metrics` serves it in Prometheus's text
    /// format (give the cache's configuration a `PrometheusMetricsFactory` over the same registry
    /// for its hits per tier). `nil` by default: no metrics, no route.
    public var metricsRegistry: PrometheusCollectorRegistry?
    /// How a source's host is resolved for its check; the address checked is the one connected
    /// to. The system's resolver by default (tests put a stub here).
    package var resolveHost: @Sendable (String) throws(ServeError) -> [IPAddress] = { host throws(ServeError) in
        try SourcePolicy.resolve(host: host)
    }
    /// Whether `/metrics` is served beside the images; `false` when it has a listener of its own
    /// (``ImageServer/addMetricsRoute(to:)``), which keeps it off a public port.
    public var servesMetricsWithImages = true
    /// A check `/ready` runs besides the cache's own: the reason the server is not ready (a shared
    /// tier it requires cannot be reached), or `nil`. `nil` by default.
    public var readinessCheck: (@Sendable () async -> String?)?

    /// A configuration that verifies with `signer` and reads no source until ``sources`` allows some.
    public init(signer: URLSigner?) {
        self.signer = signer
        sources = .none
    }

    /// Checks every number.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` naming the first field out of range, or when
    ///   neither a signer nor unsigned URLs are configured.
    public func validate() throws(ServeError) {
        guard signer != nil || allowsUnsigned else {
            throw .badOptions("no signing key (HOARD_SERVE_KEY and HOARD_SERVE_SALT) and unsigned URLs are not allowed")
        }
        let checks: [(String, Bool)] = [
            ("maximum source bytes", maximumSourceBytes >= 1), ("maximum pixels", maximumPixels >= 1),
            ("request timeout", requestTimeout > .zero),
            ("maximum redirects", (0...20).contains(maximumRedirects)),
            ("decode concurrency", (1...1024).contains(decodeConcurrency)),
            ("AVIF concurrency", (1...1024).contains(avifConcurrency)),
            ("origin concurrency", (1...1024).contains(originConcurrency)),
            ("queue capacity", (0...1_000_000).contains(queueCapacity)), ("cache max-age", cacheMaxAge >= 0), ("memory bytes", memoryBytes >= 0),
        ]
        for (name, valid) in checks where !valid { throw .badOptions("\(name) is out of range") }
        for (name, options) in presets {
            guard !name.isEmpty, !name.contains("/"), !name.contains(":") else {
                throw .badOptions("preset \"\(name)\" is not a name")
            }
            try ImagePath.checkPreset(options, named: name)
        }
    }
}

