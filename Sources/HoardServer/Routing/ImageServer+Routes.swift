import Foundation
import HTTPTypes
import Hoard
import Hummingbird
import NIOCore

extension ImageServer {
    /// Adds the routes to `router` below `prefix` (empty, or `/images` with no trailing slash:
    /// the full path before the signature, also when `router` is a group). Every route answers
    /// `HEAD` too, with `GET`'s headers and no body; an image's `HEAD` costs what its `GET` does (a
    /// variant not yet cached is made and cached, so that its length and entity tag are true).
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, prefix: String = "") {
        let images = router.group().add(middleware: ImageRequestMiddleware<Context>(log: requestLog))
        for method in [HTTPRequest.Method.get, .head] {
            router.on(RouterPath(prefix + "/health"), method: method) { request, _ in
                Self.withoutBodyForHead(request.method, Self.textResponse(.ok, "ok"))
            }
            router.on(RouterPath(prefix + "/ready"), method: method) { [self] request, _ in
                Self.withoutBodyForHead(request.method, await readiness())
            }
            if configuration.servesMetricsWithImages { addMetricsRoute(to: router, prefix: prefix, method: method) }
            images.on(RouterPath(prefix + "/**"), method: method) { [self] request, _ in
                try await imageResponse(
                    to: request.head, path: String(request.uri.path.dropFirst(prefix.count)), query: request.uri.query
                ).response(for: .get)
            }
        }
    }

    /// Adds `GET` and `HEAD` `<prefix>/metrics` to `router` (nothing without a metrics registry):
    /// for a router of its own on a private address, with
    /// ``ServerConfiguration/servesMetricsWithImages`` off.
    public func addMetricsRoute<Context: RequestContext>(to router: some RouterMethods<Context>, prefix: String = "") {
        for method in [HTTPRequest.Method.get, .head] { addMetricsRoute(to: router, prefix: prefix, method: method) }
    }

    /// `response` as a request with `method` gets it: for `HEAD`, the same headers, its length
    /// kept, no body.
    static func withoutBodyForHead(_ method: HTTPRequest.Method, _ response: Response) -> Response {
        guard method == .head else { return response }
        var headers = response.headers
        if let length = response.body.contentLength, headers[.contentLength] == nil {
            headers[.contentLength] = String(length)
        }
        return Response(status: response.status, headers: headers, body: ResponseBody())
    }

    // MARK: - Private

    private func addMetricsRoute<Context: RequestContext>(
        to router: some RouterMethods<Context>, prefix: String, method: HTTPRequest.Method
    ) {
        guard let metrics = requestLog.metrics else { return }
        router.on(RouterPath(prefix + "/metrics"), method: method) { request, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            let response = Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
            return Self.withoutBodyForHead(request.method, response)
        }
    }

    /// 200 when the cache answers a read and the configuration's readiness check passes; 503 saying
    /// which failed otherwise (the detail in the log).
    private func readiness() async -> Response {
        do {
            _ = try await hoard.retrieve(Data.self, forKey: "hoard-serve/readiness")
        } catch {
            logger.warning("not ready", metadata: ["error": .string("\(error)")])
            return Self.textResponse(.serviceUnavailable, "not ready: a cache tier fails (see the log)")
        }
        if let reason = await configuration.readinessCheck?() {
            logger.warning("not ready", metadata: ["error": .string(reason)])
            return Self.textResponse(.serviceUnavailable, "not ready: a required tier cannot be reached (see the log)")
        }
        return Self.textResponse(.ok, "ready")
    }

    /// A one-line plain-text answer, never sniffed as anything else.
    private static func textResponse(_ status: HTTPResponse.Status, _ message: String) -> Response {
        ImageResponse(status: status, text: message).response(for: .get)
    }
}
