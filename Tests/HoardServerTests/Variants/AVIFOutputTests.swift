import Foundation
import HTTPTypes
import HoardImage
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HoardServer

@Suite("AVIF out")
struct AVIFOutputTests {
    typealias Fixture = ServerFixture

    static func get(_ client: any TestClientProtocol, _ path: String, accept: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        if let accept { headers[.accept] = accept }
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    @Test("f:avif answers AVIF; auto answers AVIF to a client naming it, WebP or JPEG to others, with Vary: Accept")
    func negotiated() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            let explicit = try await Self.get(client, "/unsafe/w:64/f:avif/plain/local:///photo.jpg")
            #expect(explicit.status == .ok && explicit.headers[.contentType] == "image/avif")
            #expect(explicit.headers[.vary] == nil)
            let image = try Image(data: Data(buffer: explicit.body))
            #expect(image.width == 64 && image.height == 48)
            let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            for (accept, type) in [(chromium, "image/avif"), ("image/webp,*/*", "image/webp"), ("*/*", "image/jpeg")] {
                let response = try await Self.get(client, "/unsafe/w:64/plain/local:///photo.jpg", accept: accept)
                #expect(response.status == .ok && response.headers[.contentType] == type, "\(accept)")
                #expect(response.headers[.vary] == "Accept")
                #expect(ImageFormat(sniffing: Data(buffer: response.body))?.mediaType == type)
            }
        }
    }

    @Test("AVIF variants take places of their own: with every AVIF place held, JPEG is made and AVIF refused")
    func ownPlaces() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        var configuration = try fixture.configuration(unsigned: true)
        configuration.decodeConcurrency = 1
        configuration.avifConcurrency = 1
        configuration.queueCapacity = 0
        try await fixture.withServer(configuration) { client, server throws in
            let (gate, open) = AsyncStream.makeStream(of: Void.self)
            let holder = Task { try await server.flow.avifQueue.runOrRefuse { for await _ in gate { break } } }
            #expect(await eventually { server.flow.avifQueue.counts.running == 1 })
            let jpeg = try await Self.get(client, "/unsafe/w:40/f:jpeg/plain/local:///photo.jpg")
            #expect(jpeg.status == .ok)
            let avif = try await Self.get(client, "/unsafe/w:40/f:avif/plain/local:///photo.jpg")
            #expect(avif.status == .serviceUnavailable)
            open.yield()
            try await holder.value
            #expect(try await Self.get(client, "/unsafe/w:40/f:avif/plain/local:///photo.jpg").status == .ok)
        }
    }
}
