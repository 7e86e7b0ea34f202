import HoardSystem

extension RedisConfiguration {
    /// A configuration read from a `redis://` or `rediss://` URL, with the defaults for what a
    /// URL does not hold (timeouts, maximum reply size).
    ///
    /// The form is `redis[s]://[[user][:password]@]host[:port][/database]`: `rediss` turns TLS
    /// on (trusting the system's roots), the port defaults to 6379 and the database to 0, an
    /// IPv6 address goes in brackets, and the user and password may be percent-encoded (a
    /// password with `@`, `:` or `/` must be). An empty password counts as none.
    ///
    /// ```swift
    /// let configuration = try RedisConfiguration(url: "rediss://cache:s3cr%40t@[::1]:6380/2")
    /// // host "::1", port 6380, database 2, user "cache", password "s3cr@t", TLS on
    /// ```
    ///
    /// - Parameter url: The URL.
    /// - Throws: ``RedisClientError/invalidValue(_:)`` with field
    ///   `"Redis URL"`, the URL with everything before its `@` replaced by `***`, and what is
    ///   wrong: another scheme, a query or fragment, an empty host, a port or database that is
    ///   not a number, an invalid percent escape. The rest is checked by ``validate()``.
    /// - Complexity: O(n) in the length of the URL.
    public init(url: String) throws(RedisClientError) {
        let shown = Self.redactingCredentials(url)
        func refuse(_ requirement: String) -> RedisClientError {
            .invalidValue(InvalidValueError(field: "Redis URL", value: shown, requirement: requirement))
        }
        guard let separator = url.firstRange(of: "://") else {
            throw refuse("redis://[user[:password]@]host[:port][/database] or rediss://...")
        }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "redis" || scheme == "rediss" else { throw refuse("a redis:// or rediss:// URL") }
        let rest = url[separator.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else { throw refuse("without a query or fragment") }
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart]
        let path = rest[pathStart...]

        self.init()
        if scheme == "rediss" { tls = TLS() }
        if let at = authority.lastIndex(of: "@") {
            let userInformation = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let colon = userInformation.firstIndex(of: ":")
            let user = userInformation[..<(colon ?? userInformation.endIndex)]
            guard let decodedUser = Self.percentDecoded(user) else {
                throw refuse("a percent-encoded UTF-8 user name")
            }
            username = decodedUser.isEmpty ? nil : decodedUser
            if let colon {
                guard let decodedPassword = Self.percentDecoded(userInformation[userInformation.index(after: colon)...])
                else { throw refuse("a percent-encoded UTF-8 password") }
                password = decodedPassword.isEmpty ? nil : decodedPassword
            }
        }

        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("a ']' closing the IPv6 address") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("':port' or nothing after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw refuse("a host") }
        if let portText {
            guard let number = Self.decimal(portText, maximumDigits: 5) else { throw refuse("a port number") }
            port = number
        }
        if path.count > 1 {
            guard let number = Self.decimal(path.dropFirst(), maximumDigits: 9) else {
                throw refuse("a database number after the host (/0, /1, ...)")
            }
            database = number
        }
    }

    /// `url` with everything between its scheme and its last `@` replaced by `***`.
    private static func redactingCredentials(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = url.firstRange(of: "://")?.upperBound ?? url.startIndex
        guard start <= at else { return "***" }
        return url[..<start] + "***" + url[at...]
    }

    /// The decimal number in `text`: 1 to `maximumDigits` ASCII digits.
    private static func decimal(_ text: Substring, maximumDigits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maximumDigits else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `text` with `%XX` escapes decoded; `nil` for a bad escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
