import ArgumentParser
import Foundation
import Hoard
import HoardRedis
import Logging

/// The options of a shared Redis cache, for the subcommands that use one (`thumbnails`, and
/// `cache stats`, `put`, `remove`, `clear`).
///
/// The servers come from `--remote` (repeatable), else from `$HOARD_REMOTE` (URLs separated by
/// whitespace or commas); the password only from `$HOARD_REMOTE_PASSWORD`, never from a command
/// line, where every user of the machine can read it. Without servers, the cache is local only.
///
/// ```swift
/// if let tier = try await remoteOptions.openTier() {
///     configuration.tiers = [.disk, .custom(tier)]
/// }
/// ```
struct RemoteOptions: ParsableArguments {
    @Option(
        name: .customLong("remote"),
        help: ArgumentHelp(
            "A Redis server shared with other machines, redis://[user@]host[:port][/db] (rediss:// for TLS); repeat for several (keys are spread over them). Default: $HOARD_REMOTE (URLs separated by spaces or commas). The password comes from $HOARD_REMOTE_PASSWORD only.",
            valueName: "URL"))
    var remotes: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The prefix of the keys in Redis: caches share values only within one namespace. 1-128 letters, digits, '.', '-' or '_'. Default: default (the cache's name).",
            valueName: "NAME"))
    var remoteNamespace: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The deadline for connecting to a Redis server and for each command, 0.001-3600 seconds; a server that fails is skipped (the run goes on with the local cache) and tried again later.",
            valueName: "SECONDS"))
    var remoteTimeout: Double = 2

    @Flag(
        name: .long,
        help: "Fail (exit status 1) when a Redis server cannot be reached at the start, instead of going on without it."
    )
    var remoteRequired = false

    /// The environment variable listing the servers when no `--remote` is given.
    static let serversVariable = "HOARD_REMOTE"
    /// The environment variable holding the servers' password.
    static let passwordVariable = "HOARD_REMOTE_PASSWORD"
    /// The `--remote-timeout` values accepted, in seconds.
    static let timeoutRange = 0.001...3600.0
    /// The namespace of the tool's cache, named `"default"`.
    static let defaultNamespace = "default"

    func validate() throws {
        // A closed range of Double holds no NaN and no infinity.
        guard Self.timeoutRange.contains(remoteTimeout) else {
            throw ValidationError("--remote-timeout must be between 0.001 and 3600 seconds, not \(remoteTimeout)")
        }
        if let remoteNamespace, !Self.isValidNamespace(remoteNamespace) {
            throw ValidationError(
                "--remote-namespace must be 1-128 letters, digits, '.', '-' or '_', not \"\(remoteNamespace)\"")
        }
        for url in remotes where Self.hasPassword(url) {
            throw ValidationError(
                "--remote \(Self.redacted(url)): a password on the command line is visible to every user of the machine; set \(Self.passwordVariable) instead"
            )
        }
        let (urls, origin) = servers
        if urls.isEmpty {
            if remoteRequired {
                throw ValidationError("--remote-required needs --remote URL or \(Self.serversVariable)")
            }
            return
        }
        do {
            _ = try RedisTier.Configuration(urls: urls)
        } catch {
            // The library shows a URL without its user information.
            throw ValidationError("\(origin): \(error)")
        }
        // AUTH needs a password with a user name.
        if password == nil, let url = urls.first(where: { Self.hasUserName($0) && !Self.hasPassword($0) }) {
            throw ValidationError(
                "\(origin) \(Self.redacted(url)): a user name needs a password: set \(Self.passwordVariable)")
        }
    }

    /// `$HOARD_REMOTE_PASSWORD`, or `nil` when it is unset or empty.
    var password: String? {
        ProcessInfo.processInfo.environment[Self.passwordVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The servers' URLs and where they came from (`--remote` or `$HOARD_REMOTE`); none without either.
    var servers: (urls: [String], origin: String) {
        if !remotes.isEmpty { return (remotes, "--remote") }
        let listed = ProcessInfo.processInfo.environment[Self.serversVariable] ?? ""
        let urls = listed.split { $0.isWhitespace || $0 == "," }.map(String.init)
        return (urls, Self.serversVariable)
    }

    /// The namespace: `--remote-namespace`, else the cache's name.
    var namespace: String { remoteNamespace ?? Self.defaultNamespace }

    /// `--remote-timeout` as a duration, in whole milliseconds rounded up (validated to 1 ms...1 hour).
    var timeout: Duration { .milliseconds(Int64((remoteTimeout * 1000).rounded(.up))) }

    /// The shared tier, or `nil` when no server is configured. With `--remote-required`, every
    /// server must answer first.
    ///
    /// - Parameter logger: Where the tier reports failing servers.
    /// - Returns: The tier; call ``RedisTier/shutdown()`` when done.
    /// - Throws: `ValidationError` (exit status 64) for settings the tier refuses that
    ///   `validate()` could not check (TLS settings it cannot load); ``RunFailure`` when a
    ///   required server cannot be reached.
    func openTier(logger: Logger) async throws -> RedisTier? {
        let (urls, origin) = servers
        guard !urls.isEmpty else { return nil }
        let tier: RedisTier
        do {
            var configuration = try RedisTier.Configuration(
                urls: urls, namespace: namespace, password: password, timeout: timeout)
            configuration.logger = logger
            tier = try RedisTier(configuration: configuration)
        } catch {
            throw ValidationError("\(origin): \(error)")
        }
        guard remoteRequired else { return tier }
        do {
            try await tier.checkReachable()
        } catch {
            await tier.shutdown()
            throw RunFailure("the shared cache is required (--remote-required): \(error)")
        }
        return tier
    }

    /// Whether `name` is a namespace the tier accepts: 1-128 ASCII letters, digits, `.`, `-`, `_`.
    static func isValidNamespace(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128
            && name.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
            }
    }

    /// Whether the Redis URL `url` holds a non-empty password (`redis://user:password@host`), read
    /// as the library reads it: the user information is what comes before the authority's last `@`.
    static func hasPassword(_ url: String) -> Bool {
        guard let userinfo = userinfo(of: url), let colon = userinfo.firstIndex(of: ":") else { return false }
        return userinfo.index(after: colon) < userinfo.endIndex
    }

    /// Whether the Redis URL `url` names a user (`redis://user@host`).
    static func hasUserName(_ url: String) -> Bool {
        userinfo(of: url).map { !$0.prefix { $0 != ":" }.isEmpty } ?? false
    }

    /// `url` with its user information replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard let userinfo = userinfo(of: url) else { return url }
        return url.replacingCharacters(in: userinfo.startIndex..<userinfo.endIndex, with: "***")
    }

    /// The user information of `url` (between `://` and the authority's last `@`), or `nil`.
    private static func userinfo(of url: String) -> Substring? {
        guard let separator = url.range(of: "://") else { return nil }
        let rest = url[separator.upperBound...]
        let authority = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return authority[..<at]
    }
}
