import HTTPTypes
import Hummingbird
import NIOCore

/// An image request's answer before it is written: made once, by ``ImageServer/imageResponse(to:path:query:)``
/// or ``ImageServer/cachedResponse(path:accept:ifNoneMatch:)``, and written by the routes or by a connection's
/// ``CachedAnswerHandler`` with the same fields.
struct ImageResponse: Sendable {
    var status: HTTPResponse.Status
    /// The fields; an image's carry its `Content-Length` (a `HEAD` is answered with it).
    var headers: HTTPFields
    /// The image or message; `nil` for none (a 304).
    var body: ByteBuffer?

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer?) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A one-line plain-text answer, never sniffed as anything else.
    init(status: HTTPResponse.Status, text: String, headers: HTTPFields = [:]) {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        self.init(status: status, headers: headers, body: ByteBuffer(string: text + "\n"))
    }

    /// The answer as a route returns it to a request with `method`: with its `Content-Length`,
    /// and for `HEAD` without its body.
    func response(for method: HTTPRequest.Method) -> Response {
        ImageServer.withoutBodyForHead(
            method, Response(status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody()))
    }
}
