import AsyncHTTPClient
import Foundation
import NIOCore

/// GET requests from the tests to servers they started, with AsyncHTTPClient's shared client
/// (FoundationNetworking's URLSession leaks inside libcurl under LeakSanitizer).
enum HTTPGet {
    /// The status, the Content-Type and the body of `url` (at most 64 MiB, within 60 s).
    static func get(_ url: String) async throws -> (status: Int, type: String?, body: Data) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers.first(name: "content-type"), Data(buffer: body))
    }
}
