import Foundation
import HTTPTypes
import Hoard
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Testing

@Suite("ImageServer")
struct ImageServerTests {
    typealias Fixture = ServerFixture

    static func get(
        _ client: any TestClientProtocol, _ path: String, _ headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers)
    }

    static func image(_ response: TestResponse) throws -> Image {
        try Image(data: Data(buffer: response.body))
    }

    @Test("signatures: the signing key and an older one are accepted; a wrong, cut or missing one, and unsigned paths, are 403")
    func signatures() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let signed = try Fixture.path("local:///photo.jpg", ["w:64"])
            #expect(try await Self.get(client, signed).status == .ok)
            #expect(try await Self.get(client, Fixture.path("local:///photo.jpg", ["w:64"], signer: Fixture.oldSigner)).status == .ok)
            let stranger = try URLSigner(keys: "0f0e0d0c0b0a09080706050403020100", salts: "0a0b")
            let part = String(signed.drop(while: { $0 == "/" }).drop(while: { $0 != "/" }))
            let wrongKey: String = try Fixture.path("local:///photo.jpg", ["w:64"], signer: stranger)
            let cut: String = "/" + String(signed.dropFirst().prefix(42)) + part
            // A signature for one path does not carry over to another.
            let moved: String = String(signed.prefix(44)) + "/w:65/" + String(part.split(separator: "/").last!)
            let refused: [String] = [wrongKey, "/unsafe" + part, cut, "/x" + part, moved]
            for path in refused {
                let response = try await Self.get(client, path)
                #expect(response.status == .forbidden, "\(path)")
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            #expect(try await Self.get(client, "/unsafe/w:64/plain/local:///photo.jpg").status == .ok)
        }
    }

    @Test("a square fit box is the tool's thumbnail: the same key, the same bytes, and a stored one is served as it is")
    func toolCompatibility() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let file = fixture.root + "/photo.jpg"
        let key = try ThumbnailKey(file: file, size: 64)
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let response = try await Self.get(client, try Fixture.path("local:///photo.jpg", ["w:64"]))
            #expect(response.status == .ok)
            #expect(Data(buffer: response.body) == (try key.encoded(key.thumbnail(from: ServerFixture.photo))))
            #expect(try fixture.hoard.storedBytes(forKey: key)?.bytes == Data(buffer: response.body))
        }
        // What the tool stored for a key is what the server answers (it reads no source for it).
        let other = try ThumbnailKey(file: file, size: 32, format: .png)
        let marker = try Image(width: 3, height: 2, format: .rgb8, pixels: Array(repeating: 7, count: 18)).pngData()
        try await fixture.hoard.storeEncoded(marker, as: Image.self, forKey: other.key)
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let response = try await Self.get(client, try Fixture.path("local:///photo.jpg", ["w:32", "f:png"]))
            #expect(Data(buffer: response.body) == marker)
        }
    }

    @Test("every option: boxes, fill with gravity, dpr, quality, formats and presets")
    func options() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            func fetch(_ options: [String], _ source: String = "local:///photo.jpg", accept: String? = nil) async throws
                -> TestResponse
            {
                var headers = HTTPFields()
                if let accept { headers[.accept] = accept }
                let response = try await Self.get(client, try Fixture.path(source, options), headers)
                #expect(response.status == .ok, "\(options)")
                return response
            }
            // 800×600 in boxes.
            let sizes: [([String], Int, Int)] = [
                (["w:100"], 100, 75), (["w:100", "h:50"], 67, 50), (["w:100", "dpr:2"], 200, 150),
                (["w:100", "h:50", "fit:fill"], 100, 50), (["w:40", "h:80", "fit:fill"], 40, 80),
                (["w:2000"], 800, 600), (["p:small"], 50, 38),
                // A box larger than the source: never enlarged, cropped to the box's proportions.
                (["w:1000", "h:1000", "fit:fill"], 600, 600), (["w:2000", "h:500", "fit:fill"], 800, 200),
            ]
            for (options, width, height) in sizes {
                let image = try Self.image(try await fetch(options))
                #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
            }
            // Gravity picks the crop: west keeps the dark-red left edge, east the bright right one.
            let west = try Self.image(try await fetch(["w:40", "h:80", "fit:fill", "g:west", "f:png"]))
            let east = try Self.image(try await fetch(["w:40", "h:80", "fit:fill", "g:east", "f:png"]))
            #expect(west.pixels[0] < 30 && east.pixels[(east.width - 1) * 3] > 225)
            // Quality changes the bytes; formats their type.
            let low = try await fetch(["w:200", "q:20", "f:jpeg"])
            let high = try await fetch(["w:200", "q:95", "f:jpeg"])
            #expect(low.body.readableBytes < high.body.readableBytes)
            for (format, type) in [("jpeg", "image/jpeg"), ("png", "image/png"), ("webp", "image/webp")] {
                let response = try await fetch(["w:50", "f:" + format], accept: "image/webp")
                #expect(response.headers[.contentType] == type && response.headers[.vary] == nil)
                #expect(ImageFormat(sniffing: Data(buffer: response.body))?.mediaType == type)
            }
        }
    }

    @Test("imgproxy's URLs: its signatures, names, insecure, extensions; expires answers 404; spellings share a variant")
    func imgproxyURLs() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        var configuration = try fixture.configuration(unsigned: true)
        configuration.urlStyle = .imgproxy
        try await fixture.withServer(configuration) { client, _ throws in
            // Signed as imgproxy signs: HMAC-SHA256(key, salt + path), the path from its `/`.
            let part = "/rs:fill:300:400:0/g:nowe/plain/local:///photo.jpg@png"
            let signed = try await Self.get(client, Fixture.signer.signedPath(part))
            #expect(signed.status == .ok && signed.headers[.contentType] == "image/png")
            let image = try Self.image(signed)
            #expect(image.width == 300 && image.height == 400)
            #expect(image.pixels[0] < 30, "north-west keeps the dark left edge")
            // A width alone, as imgproxy reads it: that width, the height from the source.
            let alone = try Self.image(try await Self.get(client, "/insecure/w:200/plain/local:///photo.jpg"))
            #expect(alone.width == 200 && alone.height == 150)
            let encoded = Data("local:///photo.jpg".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            let split = encoded.prefix(8) + "/" + encoded.dropFirst(8)
            let webp = try await Self.get(client, "/insecure/s:64:64/\(split).webp")
            #expect(webp.status == .ok && webp.headers[.contentType] == "image/webp")
            #expect(try await Self.get(client, "/insecure/w:64/exp:1/plain/local:///photo.jpg").status == .notFound)
            let future = "/insecure/w:64/exp:\(Int(Date().timeIntervalSince1970) + 3600)/plain/local:///photo.jpg"
            #expect(try await Self.get(client, future).status == .ok)
            let unknown = try await Self.get(client, "/insecure/w:64/wm:0.5/plain/local:///photo.jpg")
            #expect(unknown.status == .badRequest && String(buffer: unknown.body).contains("wm"))
            // Two spellings of one rendering: the same bytes and tag (their shared key is VariantTests').
            let first = try await Self.get(client, "/insecure/rs:fill-down:120:80/plain/local:///photo.jpg")
            let second = try await Self.get(client, "/insecure/resizing_type:fill-down/width:60/height:40/dpr:2/plain/local:///photo.jpg")
            #expect(first.status == .ok && Data(buffer: first.body) == Data(buffer: second.body))
            #expect(first.headers[.eTag] == second.headers[.eTag])
        }
    }

    @Test("f:auto: AVIF for a client that names it, else WebP, else JPEG or PNG by alpha; Vary: Accept")
    func negotiation() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            let cases: [(String, String?, String)] = [
                ("local:///photo.jpg", chromium, "image/avif"), ("local:///photo.jpg", "image/webp,*/*", "image/webp"),
                ("local:///photo.jpg", "*/*", "image/jpeg"), ("local:///photo.jpg", nil, "image/jpeg"),
                ("local:///alpha.png", "image/png,*/*", "image/png"), ("local:///alpha.png", chromium, "image/avif"),
                ("local:///alpha.png", "image/webp", "image/webp"), ("local:///photo.jpg", "image/webp;q=0", "image/jpeg"),
            ]
            for (source, accept, type) in cases {
                var headers = HTTPFields()
                if let accept { headers[.accept] = accept }
                let response = try await Self.get(client, try Fixture.path(source, ["w:32"]), headers)
                #expect(response.headers[.contentType] == type, "\(source) \(accept ?? "none")")
                #expect(response.headers[.vary] == "Accept")
            }
        }
    }

    @Test("ETag from the content; If-None-Match answers 304 (weak, lists, *); Cache-Control carries the max-age")
    func conditional() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        var configuration = try fixture.configuration()
        configuration.cacheMaxAge = 600
        try await fixture.withServer(configuration) { client, _ throws in
            let path = try Fixture.path("local:///photo.jpg", ["w:64", "f:jpeg"])
            let first = try await Self.get(client, path)
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl] == "public, max-age=600")
            #expect(try await Self.get(client, path).headers[.eTag] == tag)
            for condition in [tag, "W/" + tag, "\"other\", " + tag, "*"] {
                let response = try await Self.get(client, path, [.ifNoneMatch: condition])
                #expect(response.status == .notModified && response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == tag)
            }
            #expect(try await Self.get(client, path, [.ifNoneMatch: "\"other\""]).status == .ok)
            // Another variant has another tag.
            #expect(try await Self.get(client, Fixture.path("local:///photo.jpg", ["w:65"])).headers[.eTag] != tag)
        }
    }

    @Test("local sources: traversal, links, FIFOs, missing files, non-images, cut images and big files get their statuses")
    func localErrors() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let outside = fixture.directory.url(for: "secret.jpg")
        try ServerFixture.photo.write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/link.jpg", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.root + "/linkdir", withDestinationPath: fixture.directory.path)
        #expect(mkfifo(fixture.root + "/fifo.jpg", 0o600) == 0)
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            let cases: [(String, HTTPResponse.Status)] = [
                ("/unsafe/w:10/plain/local:///../secret.jpg", .badRequest),
                ("/unsafe/w:10/plain/local:///sub/..%2F..%2Fsecret.jpg", .badRequest),
                ("/unsafe/w:10/plain/local:///link.jpg", .forbidden),
                ("/unsafe/w:10/plain/local:///linkdir/secret.jpg", .forbidden),
                ("/unsafe/w:10/plain/local:///fifo.jpg", .forbidden),
                ("/unsafe/w:10/plain/local:///nothing.jpg", .notFound),
                ("/unsafe/w:10/plain/local:///sub/nothing/x.jpg", .notFound),
                ("/unsafe/w:10/plain/local:///text.jpg", .unsupportedMediaType),
                ("/unsafe/w:10/plain/local:///cut.jpg", .unprocessableContent),
                ("/unsafe/w:10/plain/local:///big.jpg", .contentTooLarge),
                ("/unsafe/w:10/plain/local:///sub/photo.jpg", .ok),
            ]
            for (path, status) in cases {
                let response = try await Self.get(client, path)
                #expect(response.status == status, "\(path): \(String(buffer: response.body))")
            }
        }
        // Without a root, local sources are refused.
        var noRoot = try fixture.configuration(unsigned: true)
        noRoot.sources = try SourcePolicy(allowing: [])
        try await fixture.withServer(noRoot) { client, _ throws in
            #expect(try await Self.get(client, "/unsafe/w:10/plain/local:///photo.jpg").status == .forbidden)
        }
    }

    @Test("/metrics: requests by status, time by stage, in flight, queue length, memory answers and the cache's counters")
    func metrics() async throws {
        let registry = PrometheusCollectorRegistry()
        let fixture = try Fixture(registry: registry)
        defer { fixture.directory.remove() }
        var configuration = try fixture.configuration()
        configuration.metricsRegistry = registry
        try await fixture.withServer(configuration) { client, _ throws in
            let path = try Fixture.path("local:///photo.jpg", ["w:64"])
            for _ in 0..<3 { #expect(try await Self.get(client, path).status == .ok) }
            #expect(try await Self.get(client, "/unsafe/w:64/plain/local:///photo.jpg").status == .forbidden)
            let page = try await Self.get(client, "/metrics")
            #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: page.body)
            for line in [
                #"hoard_serve_requests_total{status="200"} 3"#, #"hoard_serve_requests_total{status="403"} 1"#,
                #"hoard_serve_duration_seconds_count{stage="total"} 4"#, #"hoard_serve_duration_seconds_count{stage="decode"} 1"#,
                #"hoard_serve_duration_seconds_count{stage="encode"} 1"#, #"hoard_serve_duration_seconds_count{stage="origin"} 1"#,
                #"hoard_serve_duration_seconds_count{stage="queue"} 1"#, "hoard_serve_in_flight 0", "hoard_serve_queue_length 0",
                // The second and third answers come from the server's memory, not the cache's tiers.
                "hoard_serve_memory_hits_total 2", #"hoard_misses_total{cache="serve",tier="disk"} 1"#,
            ] {
                #expect(text.contains(line), "\(line) missing from:\n\(text)")
            }
        }
    }

    @Test("errors are plain text, never sniffed; a query is refused; an unauthenticated path learns nothing of presets")
    func errorBodies() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let signed = try Fixture.path("local:///photo.jpg", ["w:64"])
            let query = try await Self.get(client, signed + "?v=2")
            #expect(query.status == .badRequest)
            #expect(query.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(query.headers[.xContentTypeOptions] == "nosniff")
            // A bad signature is refused before the options are read: no word of the missing preset.
            let unknown = try await Self.get(client, "/" + String(repeating: "A", count: 43) + "/p:secret/x")
            #expect(unknown.status == .forbidden && !String(buffer: unknown.body).contains("secret"))
            // A padded or otherwise respelled signature is another URL, and refused.
            let signature = String(signed.dropFirst().prefix(43))
            let rest = String(signed.dropFirst(44))
            #expect(try await Self.get(client, "/" + signature + "=" + rest).status == .forbidden)
        }
    }

    @Test("f:webp and f:auto share a cache entry, but only f:auto answers with Vary: Accept, from memory too")
    func varyFromMemory() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let explicit = try await Self.get(client, try Fixture.path("local:///photo.jpg", ["w:64", "f:webp"]))
            #expect(explicit.headers[.vary] == nil && explicit.headers[.contentType] == "image/webp")
            let automatic = try await Self.get(
                client, try Fixture.path("local:///photo.jpg", ["w:64"]), [.accept: "image/webp"])
            #expect(automatic.headers[.vary] == "Accept" && automatic.body == explicit.body)
        }
    }

    @Test("a cache or root the server cannot use is a 500 whose body names no path")
    func internalErrors() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        var configuration = try fixture.configuration(unsigned: true)
        configuration.sources = try SourcePolicy(allowing: [], localRoot: fixture.directory.path + "/no-such-root")
        try await fixture.withServer(configuration) { client, _ throws in
            let response = try await Self.get(client, "/unsafe/w:10/plain/local:///photo.jpg")
            #expect(response.status == .internalServerError)
            #expect(!String(buffer: response.body).contains(fixture.directory.path))
        }
    }

    @Test("fill of a source smaller than the box keeps the box's proportions")
    func smallFill() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            let response = try await Self.get(client, try Fixture.path("local:///alpha.png", ["w:200", "h:50", "fit:fill"]))
            let image = try Self.image(response)
            #expect(image.width == 32 && image.height == 8)
        }
    }

    @Test("health and readiness answer 200")
    func operations() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try await fixture.withServer(try fixture.configuration()) { client, _ throws in
            #expect(try await Self.get(client, "/health").status == .ok)
            #expect(try await Self.get(client, "/ready").status == .ok)
        }
    }
}
