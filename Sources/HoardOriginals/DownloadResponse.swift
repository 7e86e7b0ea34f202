import Foundation

/// What a download brought: the body, or word that the cached original is still current, with
/// the response's caching fields and times.
package struct DownloadResponse: Sendable {
    /// The response's outcome.
    package enum Body: Sendable {
        /// A 2xx response's whole body.
        case data(Data)
        /// `304 Not Modified`, the answer to a conditional request: the cached original stands.
        case notModified
    }

    /// The body, or ``Body/notModified``.
    package let body: Body
    /// The caching fields (`ETag`, `Cache-Control`, ...) and when the request was sent and its
    /// response received.
    package let freshness: HTTPFreshness
}

/// The validators a conditional request sends (RFC 9110 §13.1): the cached original's `ETag` in
/// `If-None-Match` (weak or strong, verbatim) and its `Last-Modified` in `If-Modified-Since`.
package struct RequestConditions: Sendable, Equatable {
    /// Sent as `If-None-Match`.
    package var entityTag: String?
    /// Sent as `If-Modified-Since`.
    package var lastModified: String?
}

extension RequestConditions {
    /// The conditions that revalidate an original with `freshness`, or `nil` when it has no
    /// validator (then only a full download can revalidate it).
    package init?(_ freshness: HTTPFreshness) {
        guard freshness.entityTag != nil || freshness.lastModified != nil else { return nil }
        entityTag = freshness.entityTag
        lastModified = freshness.lastModified
    }
}
