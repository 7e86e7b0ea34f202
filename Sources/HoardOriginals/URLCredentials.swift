import Foundation
import Hoard

/// The user name and password of an http(s) input (`https://user:password@host/a.jpg`), kept out
/// of everything the tool prints or stores.
///
/// The download still sends them (as HTTP basic authentication). Anything shown, a summary line,
/// the `--json` results, a failure reason, says `user:***@` instead (or `***@` for a user name
/// alone, which is often a token); the cache keys and the output file names' hash see only the
/// SHA-256 of the user information.
///
/// ```swift
/// URLCredentials.redactingPasswords(in: "https://ann:secret@example.com/a.jpg")
/// // "https://ann:***@example.com/a.jpg"
/// if let url = URL(string: "https://ann:secret@example.com/a.jpg") {
///     URLCredentials(of: url)?.user  // "ann"
/// }
/// ```
package struct URLCredentials: Sendable, Hashable {
    /// The user name, percent-decoded.
    package let user: String
    /// The password, percent-decoded, or `nil` when the URL has none.
    package let password: String?
    /// The user information as written in the URL (`user:password`, percent-encoded).
    package let userinfo: String

    /// The credentials in `url`, or `nil` when it has no user information.
    package init?(of url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let encodedUser = components.percentEncodedUser
        let encodedPassword = components.percentEncodedPassword
        guard encodedUser != nil || encodedPassword != nil else { return nil }
        user = components.user ?? ""
        password = components.password
        userinfo = (encodedUser ?? "") + (encodedPassword.map { ":" + $0 } ?? "")
    }

    /// The strings that must never be shown: the password (or the user name, when there is no
    /// password) as written and decoded, and the basic authentication header's encoding.
    package var secrets: [String] {
        let secret = password ?? user
        let written = userinfo.split(separator: ":", maxSplits: 1).last.map(String.init) ?? userinfo
        let basic = Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        return Array(Set([secret, written, basic].filter { !$0.isEmpty }))
    }

    /// `url` without its user information: what is requested, and what errors may quote.
    package static func removing(from url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url ?? url
    }

    /// `text` with every `scheme://user:password@` shown as `scheme://user:***@`, and every
    /// `scheme://user@` as `scheme://***@`.
    ///
    /// - Complexity: O(*n*) in the length of `text`.
    package static func redactingPasswords(in text: String) -> String {
        var result = ""
        var rest = text[...]
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            let authorityEnd =
                rest.firstIndex { "/?#\"'<> \t\r\n".contains($0) } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            guard let at = authority.lastIndex(of: "@") else { continue }
            let userinfo = authority[..<at]
            if let colon = userinfo.firstIndex(of: ":") {
                result += userinfo[..<colon] + ":***"
            } else {
                result += "***"
            }
            rest = rest[at...]
        }
        return result + rest
    }

    /// `text` with user information in URLs redacted (see ``redactingPasswords(in:)``) and every
    /// occurrence of `secrets` (see ``secrets``) replaced by `***`: an error message may quote a
    /// password decoded, or outside a URL.
    package static func redacting(_ text: String, secrets: [String]) -> String {
        var redacted = redactingPasswords(in: text)
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            redacted = redacted.replacingOccurrences(of: secret, with: "***")
        }
        return redacted
    }
}
