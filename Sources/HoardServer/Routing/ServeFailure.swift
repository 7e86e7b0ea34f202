import HTTPTypes
import Hummingbird

/// A refused or failed image request as Hummingbird answers errors: its ``ServeError``'s status
/// and message as plain text, never stored by a cache in front (`no-store`), with `Retry-After`
/// when the server is overloaded.
struct ServeFailure: HTTPResponseError {
    let error: ServeError

    /// The failure `error` stands for: a ``ServeError`` as it is, another error as what it means
    /// for the client (see ``VariantFlow/serveError(_:)``).
    init(_ error: any Error) {
        self.error = VariantFlow.serveError(error)
    }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        if case .overloaded(let seconds) = error { headers[.retryAfter] = "\(seconds)" }
        return ImageResponse(status: status, text: error.responseMessage, headers: headers).response(for: .get)
    }
}
