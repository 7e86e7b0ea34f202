import HTTPTypes
import Hummingbird

/// The image route's middleware: times, counts and logs each request (``RequestLog``), turns an
/// error into its answer (``ServeFailure``, an `HTTPResponseError`: its status, `no-store`,
/// `Retry-After` when overloaded; a 5xx also logged as a warning), and answers `HEAD` with `GET`'s
/// fields and no body.
struct ImageRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: RequestLog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        log.changeInFlight(by: 1)
        defer { log.changeInFlight(by: -1) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let failure = ServeFailure(error)
            if failure.status.code >= 500 {
                context.logger.warning(
                    "request failed",
                    metadata: ["path": .string(request.uri.path), "error": .string(failure.error.description)])
            }
            response = try failure.response(from: request, context: context)
        }
        response = ImageServer.withoutBodyForHead(request.method, response)
        log.answered(
            method: request.method.rawValue, path: request.uri.path, accept: request.headers[.accept],
            status: response.status, contentType: response.headers[.contentType], since: started,
            logger: context.logger)
        return response
    }
}
