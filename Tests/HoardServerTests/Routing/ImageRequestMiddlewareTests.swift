import Foundation
import HTTPTypes
@testable import HoardServer
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The image route's middleware on its own, in front of routes that answer or throw: errors as
/// their answers, `HEAD` without a body, every request counted out of flight again.
@Suite("ImageRequestMiddleware")
struct ImageRequestMiddlewareTests {
    private struct Unexpected: Error {}

    private func application(_ log: RequestLog) -> some ApplicationProtocol {
        let router = Router()
        let images = router.group().add(middleware: ImageRequestMiddleware<BasicRequestContext>(log: log))
        for method in [HTTPRequest.Method.get, .head] {
            images.on("/busy", method: method) { _, _ -> Response in throw ServeError.overloaded(retryAfter: 1) }
            images.on("/broken", method: method) { _, _ -> Response in throw Unexpected() }
            images.on("/refused", method: method) { _, _ -> Response in throw ServeError.sourceRefused("not listed") }
            images.on("/image", method: method) { _, _ in
                ImageResponse(status: .ok, headers: [.contentType: "image/png"], body: ByteBuffer(string: "png"))
                    .response(for: .get)
            }
        }
        return Application(router: router)
    }

    @Test("a ServeError is its status and message, never stored; overloaded says when to retry; any other error is a 500 naming nothing")
    func errorsAreAnswers() async throws {
        let log = RequestLog(metrics: nil, logger: Logger(label: "test")) { 0 }
        try await application(log).test(.live) { client in
            let busy = try await client.execute(uri: "/busy", method: .get)
            #expect(busy.status == .serviceUnavailable && busy.headers[.retryAfter] == "1")
            #expect(busy.headers[.cacheControl] == "no-store" && busy.headers[.contentType] == "text/plain; charset=utf-8")
            let refused = try await client.execute(uri: "/refused", method: .get)
            #expect(refused.status == .forbidden && String(buffer: refused.body) == "Source refused: not listed\n")
            let broken = try await client.execute(uri: "/broken", method: .get)
            #expect(broken.status == .internalServerError)
            #expect(String(buffer: broken.body) == "Internal error (see the server's log)\n")
        }
    }

    @Test("HEAD gets GET's status and fields, its length among them, and no body; errors too")
    func headHasNoBody() async throws {
        let log = RequestLog(metrics: nil, logger: Logger(label: "test")) { 0 }
        try await application(log).test(.live) { client in
            for path in ["/image", "/refused"] {
                let get = try await client.execute(uri: path, method: .get)
                let head = try await client.execute(uri: path, method: .head)
                #expect(head.status == get.status && head.body.readableBytes == 0, "\(path)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
            }
        }
    }
}
