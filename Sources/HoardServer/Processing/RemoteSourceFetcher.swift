import AsyncHTTPClient
import Foundation
import NIOCore

/// Downloads `https://` and `http://` sources: each URL (the source and every redirect) must be
/// allowed by the ``SourcePolicy`` and resolve only to allowed addresses before a request is made;
/// redirects are followed here, not by the client, so that each hop is checked; the body is read
/// up to the byte limit, within the request's time.
struct RemoteSourceFetcher: Sendable {
    let policy: SourcePolicy
    let maximumBytes: Int
    let maximumRedirects: Int
    let timeout: Duration
    let client: HTTPClient

    /// Builds the client: no redirects of its own, connection and read timeouts.
    static func makeClient(connectTimeout: Duration, readTimeout: Duration) -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(
            connect: .milliseconds(connectTimeout.milliseconds), read: .milliseconds(readTimeout.milliseconds))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The body of `url`.
    ///
    /// - Throws: ``ServeError``: `sourceRefused` for a URL or address the policy refuses (the
    ///   source or a redirect), `sourceMissing` for 404 and 410, `sourceTooLarge` past the limit,
    ///   `originTimedOut` past the time, `originFailed` for anything else.
    func fetch(_ url: URL) async throws(ServeError) -> Data {
        do {
            return try await withThrowingTaskGroup(of: Data?.self) { group in
                group.addTask { try await self.follow(url) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let data = first else {
                    throw ServeError.originTimedOut("no whole answer from \(Self.origin(url)) within \(timeout)")
                }
                return data
            }
        } catch let error as ServeError {
            throw error
        } catch let error as HTTPClientError
            where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
        {
            throw .originTimedOut("\(Self.origin(url)): \(error)")
        } catch {
            throw .originFailed("\(Self.origin(url)): \(error)")
        }
    }

    private func follow(_ start: URL) async throws -> Data {
        var url = start
        for _ in 0...maximumRedirects {
            try await check(url)
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .init(timeout))
            switch response.status.code {
            case 200..<300:
                return try await body(of: response)
            case 301, 302, 303, 307, 308:
                for try await _ in response.body {}
                guard let location = response.headers.first(name: "location"),
                    let next = URL(string: location, relativeTo: url)?.absoluteURL
                else { throw ServeError.originFailed("\(Self.origin(url)) redirected without a valid Location") }
                let source: ImageSource
                do {
                    source = try ImageSource(parsing: next.absoluteString)
                } catch {
                    throw ServeError.sourceRefused("a redirect to \(Self.origin(next)) is not an allowed source")
                }
                guard case .remote(let redirected) = source else { throw ServeError.sourceRefused("a redirect left http(s)") }
                url = redirected
            case 404, 410:
                throw ServeError.sourceMissing("\(Self.origin(url)) answered \(response.status.code)")
            default:
                throw ServeError.originFailed("\(Self.origin(url)) answered \(response.status.code)")
            }
        }
        throw ServeError.originFailed("more than \(maximumRedirects) redirects")
    }

    /// The policy's checks for one URL: the allow-list, then the addresses its host resolves to.
    private func check(_ url: URL) async throws {
        let prefix = try policy.prefix(for: .remote(url))
        guard let prefix, let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.host else {
            throw ServeError.sourceRefused("\(Self.origin(url)) has no host")
        }
        // getaddrinfo blocks: off the cooperative pool's threads.
        let addresses = try await Task.detached { try SourcePolicy.resolve(host: host) }.value
        try policy.check(addresses: addresses, for: prefix)
    }

    private func body(of response: HTTPClientResponse) async throws -> Data {
        if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > maximumBytes {
            throw ServeError.sourceTooLarge("the origin declares \(declared) bytes; the limit is \(maximumBytes)")
        }
        var body = Data()
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= maximumBytes else {
                throw ServeError.sourceTooLarge("the source is larger than \(maximumBytes) bytes")
            }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return body
    }

    private static func origin(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return "\(components?.scheme ?? "?")://\(components?.host ?? "?")"
    }
}

extension Duration {
    /// Whole milliseconds, at least 1.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(1, min(seconds, 1 << 40) * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .milliseconds(duration.milliseconds)
    }
}
