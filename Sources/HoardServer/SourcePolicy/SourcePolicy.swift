import Foundation

/// Which sources the server may read: http(s) URLs under an allowed prefix whose host resolves only
/// to addresses of an allowed kind, and files under a local root.
///
/// A prefix matches by its parts, not its text: the same scheme, host (case-insensitive) and port,
/// and a path that starts with the prefix's path at a `/` boundary, so `https://a.example/img/`
/// allows neither `https://a.example.evil/img/x` nor `https://a.example/images/x`. A prefix whose
/// host is a loopback address or `localhost` also allows loopback addresses for that host (tests
/// and same-machine origins); every other non-global address needs ``allowedKinds``.
///
/// ```swift
/// let policy = try SourcePolicy(allowing: ["https://images.example/"])
/// try policy.prefix(for: .remote(URL(string: "https://images.example/a.jpg")!))
/// ```
public struct SourcePolicy: Sendable {
    /// An allowed URL prefix, parsed.
    public struct Prefix: Sendable, Hashable {
        let scheme: String
        let host: String
        let port: Int
        let path: String

        /// Whether this prefix names this machine, so that loopback addresses are allowed for it.
        var isLoopback: Bool {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            return bare == "localhost" || IPAddress(bare)?.kind == .loopback
        }
    }

    /// The allowed prefixes.
    public let prefixes: [Prefix]
    /// The folder `local:` sources are read from; `nil` refuses them.
    public let localRoot: String?
    /// Kinds of address allowed besides global ones, for every prefix.
    public let allowedKinds: Set<IPAddress.Kind>

    /// A policy that allows no source.
    public static let none = SourcePolicy(prefixes: [], localRoot: nil, allowedKinds: [])

    private init(prefixes: [Prefix], localRoot: String?, allowedKinds: Set<IPAddress.Kind>) {
        self.prefixes = prefixes
        self.localRoot = localRoot
        self.allowedKinds = allowedKinds
    }

    /// A policy over URL prefixes (`https://host[:port]/path`), a local root and extra address kinds.
    ///
    /// - Throws: ``ServeError/badOptions(_:)`` for a prefix that is not an http(s) URL with a host,
    ///   or that carries user information, a query or a fragment.
    public init(allowing prefixes: [String], localRoot: String? = nil, allowedKinds: Set<IPAddress.Kind> = []) throws(ServeError) {
        self.prefixes = try prefixes.map { text throws(ServeError) in try Self.prefix(parsing: text) }
        self.localRoot = localRoot
        self.allowedKinds = allowedKinds.subtracting([.global])
    }

    /// The prefix that allows `source`, for a remote one.
    ///
    /// - Returns: The first matching prefix; `nil` for a local source under a configured root.
    /// - Throws: ``ServeError/sourceRefused(_:)`` when no prefix matches, or a local source has no root.
    @discardableResult
    public func prefix(for source: ImageSource) throws(ServeError) -> Prefix? {
        switch source {
        case .local:
            guard localRoot != nil else { throw .sourceRefused("local files are not served (no --root)") }
            return nil
        case .remote(let url):
            guard let target = try? Self.prefix(parsing: url.absoluteString, asPrefix: false),
                let match = prefixes.first(where: { Self.matches(target, $0) })
            else { throw .sourceRefused("\(Self.origin(of: url)) is not on the allow-list") }
            return match
        }
    }

    /// Checks the addresses a remote source's host resolved to: every one must be global, of an
    /// allowed kind, or loopback under a loopback prefix.
    ///
    /// - Throws: ``ServeError/sourceRefused(_:)`` naming the first refused address and its kind,
    ///   or when there is none.
    public func check(addresses: [IPAddress], for prefix: Prefix) throws(ServeError) {
        guard !addresses.isEmpty else { throw .sourceRefused("\(prefix.host) resolves to no address") }
        for address in addresses {
            let kind = address.kind
            if kind == .global || allowedKinds.contains(kind) { continue }
            if kind == .loopback && prefix.isLoopback { continue }
            throw .sourceRefused("\(prefix.host) resolves to \(address), a \(kind.rawValue) address")
        }
    }

    /// Resolves `host` (any form the system resolver reads: names, dotted quads, `2130706433`,
    /// `0177.0.0.1`, IPv6 in brackets or not) to its addresses.
    ///
    /// - Throws: ``ServeError/originFailed(_:)`` when it does not resolve.
    public static func resolve(host: String) throws(ServeError) -> [IPAddress] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, nil, &hints, &list)
        guard status == 0, let list else { throw .originFailed("\(host) does not resolve") }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let socket = entry.pointee.ai_addr {
                switch Int32(socket.pointee.sa_family) {
                case AF_INET:
                    socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var address = v4.pointee.sin_addr
                        IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { addresses.append($0) }
                    }
                case AF_INET6:
                    socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var address = v6.pointee.sin6_addr
                        IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }).map { addresses.append($0) }
                    }
                default: break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return Array(Set(addresses)).sorted { $0.description < $1.description }
    }

    private static func matches(_ target: Prefix, _ prefix: Prefix) -> Bool {
        guard target.scheme == prefix.scheme, target.host == prefix.host, target.port == prefix.port else { return false }
        if prefix.path.hasSuffix("/") || prefix.path.isEmpty { return target.path.hasPrefix(prefix.path) }
        return target.path == prefix.path || target.path.hasPrefix(prefix.path + "/")
    }

    private static func prefix(parsing text: String, asPrefix: Bool = true) throws(ServeError) -> Prefix {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty
        else { throw .badOptions("\(text) is not an http(s) URL with a host") }
        guard components.user == nil, components.password == nil, components.fragment == nil,
            !asPrefix || components.query == nil
        else { throw .badOptions("\(text) carries user information, a query or a fragment") }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        // No way out of a prefix's folder as the origin may read the path: dot segments in any
        // spelling (`..`, `%2e%2e`, `..;`), encoded slashes and backslashes.
        let lowered = path.lowercased()
        let escapes =
            lowered.contains("%2f") || lowered.contains("%5c") || lowered.contains("\\")
            || lowered.split(separator: "/").contains { segment in
                let decoded = segment.removingPercentEncoding ?? String(segment)
                return decoded == "." || decoded.hasPrefix("..") || decoded.hasPrefix(".;")
            }
        guard !escapes else { throw .badOptions("\(text) has a dot segment or an encoded slash in its path") }
        return Prefix(scheme: scheme, host: host, port: port, path: path)
    }

    private static func origin(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        return "\(components?.scheme ?? "?")://\(components?.host ?? "?")"
    }
}
