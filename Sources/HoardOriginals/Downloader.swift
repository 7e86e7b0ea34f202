import AsyncHTTPClient
import Foundation
import Hoard
import HoardSystem
import NIOCore
import NIOHTTP1

/// Downloads with one shared AsyncHTTPClient (connections are reused; with a check that pins
/// addresses, one per checked host and address), a time limit per request,
/// a redirect limit, and a body size limit enforced while streaming (a larger body is cut off,
/// never buffered). The client, and NIO's event loop threads with it, are only created by the
/// first download, so a batch of local files or cached thumbnails never starts them.
///
/// A URL's user name and password are sent as basic authentication, never as part of the URL
/// given to the client, so no client error can quote them. A request that fails because the
/// server had closed the kept-alive connection it was sent on, before any response arrived, is
/// sent once more (the pool then opens a new connection).
///
/// A conditional request (``download(_:conditions:)`` with the cached original's validators)
/// may be answered `304 Not Modified`, which is a result, not an error.
package final class Downloader: Sendable {
    /// The time limit per download, in seconds (`--timeout`, validated to 0.001...86400).
    package let timeout: Double
    package let maximumBytes: Int
    package let maximumRedirects: Int
    /// ``timeout`` in whole milliseconds, at least 1.
    private let timeoutMilliseconds: Int64
    private let createdClient = Lock<HTTPClient?>(nil)
    /// Clients that connect to one checked address of a host, by `"host address"`.
    private let pinnedClients = Lock<[String: HTTPClient]>([:])
    /// Checks each URL before it is requested (the first and every redirect's), or `nil`; returns
    /// the address the request must connect to (the one it checked), or `nil` to let the client
    /// resolve the host.
    private let check: (@Sendable (URL) async throws(DownloadError) -> String?)?

    /// Pinned clients kept for reuse; past this many, a pinned request gets a client of its own,
    /// shut down after it (a host whose DNS rotates through many addresses cannot grow the table).
    static let pinnedClientLimit = 64

    /// A downloader; with `check`, redirects are followed here rather than by the client, and
    /// `check` is asked about each URL before it is requested (a server's source policy). The
    /// address `check` returns is the one connected to: a host's DNS cannot answer the check
    /// with an allowed address and the connection with a refused one (DNS rebinding), since the
    /// client never resolves the host itself; TLS still names and verifies the host.
    package init(
        timeout: Double, maximumBytes: Int, maximumRedirects: Int,
        check: (@Sendable (URL) async throws(DownloadError) -> String?)? = nil
    ) {
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
        self.check = check
        timeoutMilliseconds = Self.milliseconds(timeout)
    }

    /// The longest `--timeout` accepted, in seconds: one day.
    package static let maximumTimeout = 86_400.0

    /// `seconds` in whole milliseconds, rounded up, clamped to 1 ms...one day (NaN gives 1 ms):
    /// total, so that no value can trap converting to an integer. `validate()` has already
    /// refused anything outside the tool's limits.
    package static func milliseconds(_ seconds: Double) -> Int64 {
        let milliseconds = (seconds * 1000).rounded(.up)
        guard milliseconds >= 1 else { return 1 }  // also NaN
        guard milliseconds <= maximumTimeout * 1000 else { return Int64(maximumTimeout * 1000) }
        return Int64(milliseconds)
    }

    /// The shared client, created on first use. So is its configuration, whose first creation in
    /// a process (TLS defaults included) is a noticeable part of a cached rerun that downloads
    /// nothing.
    private var client: HTTPClient {
        createdClient.withLock { client in
            if let client { return client }
            let created = makeClient()
            client = created
            return created
        }
    }

    /// A client with the downloader's limits; with `dnsOverride`, one that connects to the
    /// addresses it names instead of resolving their hosts.
    private func makeClient(dnsOverride: [String: String] = [:]) -> HTTPClient {
        let redirects: HTTPClient.Configuration.RedirectConfiguration =
            maximumRedirects == 0 || check != nil ? .disallow : .follow(max: maximumRedirects, allowCycles: false)
        var configuration = HTTPClient.Configuration(redirectConfiguration: redirects)
        configuration.timeout = .init(
            connect: .milliseconds(timeoutMilliseconds), read: .milliseconds(timeoutMilliseconds))
        // A refused connection fails its request at once instead of being retried until the timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The client for `url`: the shared one, or one connecting `url`'s host to `address`, and
    /// whether it is the caller's own to shut down.
    private func client(for url: URL, pinnedTo address: String?) -> (HTTPClient, ownedByCaller: Bool) {
        guard let address, let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.host, host != address
        else { return (client, false) }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let key = bare + " " + address
        let shared = pinnedClients.withLock { clients -> HTTPClient? in
            if let client = clients[key] { return client }
            guard clients.count < Self.pinnedClientLimit else { return nil }
            let created = makeClient(dnsOverride: [bare: address])
            clients[key] = created
            return created
        }
        if let shared { return (shared, false) }
        return (makeClient(dnsOverride: [bare: address]), true)
    }

    /// The body of `url`, or with `conditions`, `304 Not Modified` when the server says the cached
    /// original is still current.
    ///
    /// - Parameters:
    ///   - url: An http or https URL; its credentials are sent as basic authentication.
    ///   - conditions: The validators of a cached original, for a conditional request; `nil`
    ///     for a plain one (then a 304 is an error, as any other status outside 2xx).
    /// - Throws: ``DownloadError`` naming what went wrong.
    package func download(_ url: URL, conditions: RequestConditions? = nil) async throws(DownloadError) -> DownloadResponse {
        do {
            // The whole request, body included, races the time limit.
            return try await withThrowingTaskGroup(of: DownloadResponse?.self) { group in
                group.addTask { try await self.following(url, conditions: conditions) }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(self.timeoutMilliseconds))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw DownloadError.timedOut(seconds: timeout)
                }
                return response
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            throw DownloadError(error, timeout: timeout)
        }
    }

    /// ``fetch(_:conditions:)``, checking `url` first; with a check, following redirects here,
    /// each checked before it is requested.
    private func following(_ start: URL, conditions: RequestConditions?) async throws -> DownloadResponse {
        guard let check else {
            guard case .response(let response) = try await fetch(start, conditions: conditions) else {
                throw DownloadError.failed("a redirect the client did not follow")
            }
            return response
        }
        var url = start
        var seen: Set<String> = []
        for _ in 0...maximumRedirects {
            guard seen.insert(url.absoluteString).inserted else { throw DownloadError.redirectLoop }
            let address = try await check(url)
            switch try await fetch(url, conditions: conditions, pinnedTo: address) {
            case .redirect(let location):
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw DownloadError.httpStatus(302, "Found, with no valid Location")
                }
                url = next
            case .response(let response):
                return response
            }
        }
        throw DownloadError.tooManyRedirects
    }

    /// What one request gives: a response, or (to a downloader with a check) a redirect.
    private enum Hop {
        case response(DownloadResponse)
        case redirect(String)
    }

    private func fetch(_ url: URL, conditions: RequestConditions?, pinnedTo address: String? = nil) async throws -> Hop {
        let (client, owned) = client(for: url, pinnedTo: address)
        guard owned else { return try await fetch(url, conditions: conditions, with: client) }
        do {
            let hop = try await fetch(url, conditions: conditions, with: client)
            try? await client.shutdown()
            return hop
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func fetch(_ url: URL, conditions: RequestConditions?, with client: HTTPClient) async throws -> Hop {
        var request = HTTPClientRequest(url: URLCredentials.removing(from: url).absoluteString)
        if let credentials = URLCredentials(of: url) {
            request.setBasicAuth(username: credentials.user, password: credentials.password ?? "")
        }
        if let entityTag = conditions?.entityTag { request.headers.add(name: "if-none-match", value: entityTag) }
        if let lastModified = conditions?.lastModified {
            request.headers.add(name: "if-modified-since", value: lastModified)
        }
        let requestTime = Date()
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .milliseconds(timeoutMilliseconds))
        } catch where Self.isClosedConnection(error) {
            // No response byte has arrived (execute returns with the head): a GET is safe to resend.
            response = try await client.execute(request, timeout: .milliseconds(timeoutMilliseconds))
        }
        let freshness = HTTPFreshness(
            field: { response.headers[$0] }, requestTime: requestTime, responseTime: Date())
        if conditions != nil, response.status == .notModified {
            _ = try await response.body.collect(upTo: 64 * 1024)  // a 304 has no body: reads its end
            return .response(DownloadResponse(body: .notModified, freshness: freshness))
        }
        if check != nil, [301, 302, 303, 307, 308].contains(response.status.code) {
            _ = try await response.body.collect(upTo: 64 * 1024)  // a redirect's body is read and dropped
            guard let location = response.headers.first(name: "location") else {
                throw DownloadError.httpStatus(Int(response.status.code), "redirect without a Location")
            }
            return .redirect(location)
        }
        guard (200..<300).contains(response.status.code) else {
            throw DownloadError.httpStatus(Int(response.status.code), response.status.reasonPhrase)
        }
        if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > maximumBytes {
            throw DownloadError.tooLarge(limit: maximumBytes)
        }
        var body = Data()
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= maximumBytes else {
                throw DownloadError.tooLarge(limit: maximumBytes)
            }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return .response(DownloadResponse(body: .data(body), freshness: freshness))
    }

    /// Whether `error` says the connection was closed under the request: the server dropped a
    /// kept-alive connection as the pool reused it.
    private static func isClosedConnection(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: error == .remoteConnectionClosed
        case let error as ChannelError: error == .ioOnClosedChannel
        default: false
        }
    }

    /// Shuts the clients down, those downloads created.
    package func shutdown() async throws {
        let pinned = pinnedClients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        // Every client is shut down, even after one fails (a client dropped unshut traps).
        var failure: (any Error)?
        for client in [createdClient.withLock { $0 }].compactMap({ $0 }) + pinned {
            do {
                try await client.shutdown()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
