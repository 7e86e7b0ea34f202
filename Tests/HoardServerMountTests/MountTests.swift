import Foundation
import Hoard
import HoardServer
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The server as a user mounts it: only the public API of the `Hoard` and `HoardServer` products,
/// in an application with routes of its own, over a real socket (the DocC page's example).
@Suite("HoardServer mounted in an application of its own")
struct MountTests {
    @Test("An application mounts the image routes under a prefix beside its own, and answers a signed path")
    func mount() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "HoardServerMount-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = folder.appending(path: "images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let pixels = (0..<(320 * 200)).map { UInt8(truncatingIfNeeded: $0 % 320 + $0 / 320) }
        let photo = try Image(width: 320, height: 200, format: .gray8, pixels: pixels).jpegData(quality: 90)
        try photo.write(to: images.appending(path: "photo.jpg"))

        let hoard = try Hoard(configuration: .init(name: "mount", directory: folder.appending(path: "cache")))
        let keyHex = String(repeating: "6b", count: 32)
        let saltHex = String(repeating: "73", count: 16)
        var configuration = ServerConfiguration(signer: try URLSigner(keys: keyHex, salts: saltHex))
        configuration.sources = try SourcePolicy(allowing: [], localRoot: images.path(percentEncoded: false))
        let server = try ImageServer(hoard: hoard, configuration: configuration)

        let router = Router()
        router.get("/hello") { _, _ in "hello" }
        server.addRoutes(to: router, prefix: "/images")
        let http1 = server.http1Server(
            limits: ConnectionLimits(), prefix: "/images", serverName: "mount", logger: Logger(label: "mount"))
        let application = Application(router: router, server: http1)

        var options = ProcessingOptions(width: 80, height: 80)
        options.format = .png
        let part = try ImagePath.signedPart(options: options, source: try ImageSource(parsing: "local:///photo.jpg"))
        let path = try #require(configuration.signer).signedPath(part)
        try await application.test(.live) { client in
            let hello = try await client.execute(uri: "/hello", method: .get)
            #expect(hello.status == .ok && String(buffer: hello.body) == "hello")
            #expect(try await client.execute(uri: "/images/health", method: .get).status == .ok)
            for _ in 0..<2 {  // made, then from the cache
                let answer = try await client.execute(uri: "/images" + path, method: .get)
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == "image/png")
                let thumbnail = try Image(data: Data(buffer: answer.body))
                #expect((thumbnail.width, thumbnail.height) == (80, 50))
            }
            let forged = "/images/" + String(repeating: "A", count: 43) + "/" + part
            #expect(try await client.execute(uri: forged, method: .get).status == .forbidden)
        }
        try await server.shutdown()
    }
}
