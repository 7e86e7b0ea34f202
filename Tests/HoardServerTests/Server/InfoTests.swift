import Foundation
import HTTPTypes
import HoardImage
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("/info")
struct InfoTests {
    typealias Fixture = ServerFixture

    static let testImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "TestImages")

    struct Info: Decodable {
        let width, height, bytes, orientation: Int
        let format, thumbhash: String
        let alpha: Bool
        let colourProfile: String?
    }

    static func info(_ client: any TestClientProtocol, _ path: String) async throws -> (TestResponse, Info?) {
        let response = try await client.execute(uri: path, method: .get, headers: [:])
        guard response.status == .ok else { return (response, nil) }
        return (response, try JSONDecoder().decode(Info.self, from: Data(buffer: response.body)))
    }

    @Test("facts of a source: size upright, format, bytes, orientation, alpha, profile, and its ThumbHash; cached")
    func facts() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let rotated = try Data(contentsOf: Self.testImages.appending(path: "exif-orientation/Landscape_6.jpg"))
        try rotated.write(to: URL(fileURLWithPath: fixture.root + "/rotated.jpg"))
        let p3 = try ColourProfile(iccData: Data(contentsOf: Self.testImages.appending(path: "colour/p3.icc")))
        let tagged = try Image(width: 64, height: 32, format: .rgb8, pixels: [UInt8](repeating: 150, count: 64 * 32 * 3),
                               colourProfile: p3).jpegData()
        try tagged.write(to: URL(fileURLWithPath: fixture.root + "/p3.jpg"))
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let path = try Fixture.signer.signedPath("/plain/local:///photo.jpg")
            let (response, photo) = try await Self.info(client, "/info" + path)
            let facts = try #require(photo)
            #expect(response.headers[.contentType] == "application/json")
            #expect(facts.width == 800 && facts.height == 600 && facts.format == "jpeg" && !facts.alpha)
            #expect(facts.bytes == Fixture.photo.count && facts.orientation == 1 && facts.colourProfile == nil)
            let small = try Image.thumbnail(from: Fixture.photo, fittingIn: 100)
            #expect(facts.thumbhash == Data(try small.thumbHash()).base64EncodedString())
            let again = try await client.execute(uri: "/info" + path, method: .get, headers: [:])
            #expect(Data(buffer: again.body) == Data(buffer: response.body) && again.headers[.eTag] == response.headers[.eTag])

            let turned = try #require(try await Self.info(client, "/info" + (try Fixture.signer.signedPath("/plain/local:///rotated.jpg"))).1)
            let upright = try Image(data: rotated)
            #expect(turned.orientation == 6 && turned.width == upright.width && turned.height == upright.height)
            let transparent = try #require(try await Self.info(client, "/info" + (try Fixture.signer.signedPath("/plain/local:///alpha.png"))).1)
            #expect(transparent.alpha && transparent.format == "png")
            let profiled = try #require(try await Self.info(client, "/info" + (try Fixture.signer.signedPath("/plain/local:///p3.jpg"))).1)
            #expect(profiled.colourProfile?.contains("P3") == true, "\(String(describing: profiled.colourProfile))")
        }
    }

    @Test("signed as image paths; no options; bad sources answer as images do")
    func refusals() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            func status(_ path: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: path, method: .get, headers: [:]).status
            }
            #expect(try await status("/info/unsafe/plain/local:///photo.jpg") == .forbidden)
            #expect(try await status("/info/AAAA/plain/local:///photo.jpg") == .forbidden)
            #expect(try await status("/info" + (try Fixture.signer.signedPath("/w:10/plain/local:///photo.jpg"))) == .badRequest)
            #expect(try await status("/info" + (try Fixture.signer.signedPath("/plain/local:///text.jpg"))) == .unsupportedMediaType)
            #expect(try await status("/info" + (try Fixture.signer.signedPath("/plain/local:///missing.jpg"))) == .notFound)
        }
    }
}
