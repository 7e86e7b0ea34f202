/// Why the server refused or failed a request: each case is one HTTP status and a short message
/// for the response's body.
///
/// ```swift
/// ServeError.badOptions("w: 0 is not a width from 1 to 8192").status  // 400
/// ```
public enum ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path or its options do not parse, or a value is out of range (400).
    case badOptions(String)
    /// The signature is missing, malformed or matches no key; or unsigned URLs are not enabled (403).
    case signatureRefused(String)
    /// The source is not on the allow-list, escapes the local root, or resolves to an address
    /// the operator has not allowed (403).
    case sourceRefused(String)
    /// The source does not exist: the origin answered 404/410, or there is no such local file (404).
    case sourceMissing(String)
    /// The URL's `expires` time has passed (404, as imgproxy answers).
    case expired(String)
    /// The source is larger than the byte limit, or declares more pixels than allowed (413).
    case sourceTooLarge(String)
    /// The source's bytes are not an image format the server reads (415).
    case notAnImage(String)
    /// The source is an image of a supported format that does not decode (422).
    case badImage(String)
    /// The origin failed: refused the connection, answered an error, or sent a broken reply (502).
    case originFailed(String)
    /// The origin did not answer within the request's time (504).
    case originTimedOut(String)
    /// The work queue is full; the client should retry after `retryAfter` seconds (503).
    case overloaded(retryAfter: Int)
    /// The server failed on its side: its cache, its files (500). The detail is logged, never sent.
    case internalError(String)

    /// The HTTP status code the case answers with.
    public var status: Int {
        switch self {
        case .badOptions: 400
        case .signatureRefused, .sourceRefused: 403
        case .sourceMissing, .expired: 404
        case .sourceTooLarge: 413
        case .notAnImage: 415
        case .badImage: 422
        case .originFailed: 502
        case .internalError: 500
        case .overloaded: 503
        case .originTimedOut: 504
        }
    }

    /// The message the response's body carries: what went wrong, without secrets.
    public var description: String {
        switch self {
        case .badOptions(let reason): "Bad request: \(reason)"
        case .signatureRefused(let reason): "Signature refused: \(reason)"
        case .sourceRefused(let reason): "Source refused: \(reason)"
        case .sourceMissing(let reason): "Source not found: \(reason)"
        case .expired(let reason): "Expired: \(reason)"
        case .sourceTooLarge(let reason): "Source too large: \(reason)"
        case .notAnImage(let reason): "Not an image: \(reason)"
        case .badImage(let reason): "Image does not decode: \(reason)"
        case .originFailed(let reason): "Origin failed: \(reason)"
        case .originTimedOut(let reason): "Origin timed out: \(reason)"
        case .overloaded(let seconds): "Overloaded: retry after \(seconds) s"
        case .internalError(let detail): "Internal error: \(detail)"
        }
    }

    /// The reason alone, without the status's words: what a command-line tool prints.
    public var reason: String {
        switch self {
        case .badOptions(let reason), .signatureRefused(let reason), .sourceRefused(let reason),
            .sourceMissing(let reason), .expired(let reason), .sourceTooLarge(let reason), .notAnImage(let reason), .badImage(let reason),
            .originFailed(let reason), .originTimedOut(let reason), .internalError(let reason):
            reason
        case .overloaded(let seconds): "overloaded: retry after \(seconds) s"
        }
    }

    /// What the response's body says: the description, except for an internal error, whose
    /// detail (paths, the cache's own errors) stays in the log.
    public var responseMessage: String {
        if case .internalError = self { return "Internal error (see the server's log)" }
        return description
    }
}
