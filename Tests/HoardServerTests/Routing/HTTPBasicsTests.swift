import Foundation
import HTTPTypes
import Hoard
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// What every HTTP client may expect: HEAD wherever GET works, no sniffing, bare 304s, decoded local paths.
@Suite("ImageServer's HTTP basics")
struct HTTPBasicsTests {
    typealias Fixture = ServerFixture

    @Test("HEAD answers wherever GET does, with GET's status and headers (its length too) and no body")
    func head() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            for path in ["/health", "/ready", "/unsafe/w:40/plain/local:///photo.jpg", "/unsafe/w:40/plain/local:///nothing.jpg"] {
                let get = try await client.execute(uri: path, method: .get)
                let head = try await client.execute(uri: path, method: .head)
                #expect(head.status == get.status, "\(path)")
                #expect(head.body.readableBytes == 0, "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(path)")
                #expect(head.headers[.eTag] == get.headers[.eTag], "\(path)")
            }
            // A HEAD of a variant not made yet makes it (as GET would): its length and tag are true.
            let fresh = "/unsafe/w:41/plain/local:///photo.jpg"
            let head = try await client.execute(uri: fresh, method: .head)
            let get = try await client.execute(uri: fresh, method: .get)
            #expect(head.status == .ok && head.headers[.eTag] == get.headers[.eTag])
            #expect(head.headers[.contentLength] == String(get.body.readableBytes))
        }
    }

    @Test("an image answer is never sniffed; a 304 carries its validators and no Content-Type")
    func headers() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            let path = "/unsafe/w:40/plain/local:///photo.jpg"
            let image = try await client.execute(uri: path, method: .get)
            #expect(image.status == .ok && image.headers[.xContentTypeOptions] == "nosniff")
            #expect(image.headers[.contentType] == "image/jpeg")
            let tag = try #require(image.headers[.eTag])
            let notModified = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.contentType] == nil)
            #expect(notModified.headers[.eTag] == tag && notModified.headers[.cacheControl] != nil)
        }
    }

    @Test("local paths are percent-decoded once: non-ASCII names and spaces are served; empty components are 400")
    func localNames() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try ServerFixture.photo.write(to: URL(fileURLWithPath: fixture.root + "/café 1.jpg"))
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            let source = ImageSource.local(["café 1.jpg"])
            #expect(source.description == "local:///caf%C3%A9%201.jpg")
            let signed = try Fixture.path(source.description, ["w:40"])
            #expect(try await client.execute(uri: signed, method: .get).status == .ok)
            #expect(try await client.execute(uri: "/unsafe/w:40/plain/local:///caf%25C3%25A9%25201.jpg", method: .get).status == .ok)
            for refused in ["local:////photo.jpg", "local:///sub/", "local:///sub//photo.jpg", "local:///a%2F..%2Fphoto.jpg"] {
                let response = try await client.execute(uri: try Fixture.path(refused, ["w:40"]), method: .get)
                #expect(response.status == .badRequest, "\(refused): \(String(buffer: response.body))")
            }
        }
    }
}
