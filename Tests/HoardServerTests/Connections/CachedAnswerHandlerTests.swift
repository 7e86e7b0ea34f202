import Foundation
import HTTPTypes
import Hoard
import HoardOriginals
@testable import HoardServer
import HoardTestSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

/// The connection handler that answers warm image requests on the event loop, alone on an
/// embedded channel: what it writes, what it passes on, and in what order.
@Suite("CachedAnswerHandler")
struct CachedAnswerHandlerTests {
    /// Runs `body` with a server that has answered `warm` once (so its memory holds it) and the
    /// loopback origin's base URL.
    static func withWarmServer(
        memoryBytes: Int? = nil, source: String = "/photo.jpg",
        _ body: @Sendable (ImageServer, _ warm: String, _ base: String) async throws -> Void
    ) async throws {
        let fixture = try ServerFixture()
        defer { fixture.directory.remove() }
        let origin = Origin()
        try await origin.run { port in
            let base = "http://127.0.0.1:\(port)"
            var configuration = try fixture.configuration(allowing: [base + "/"], unsigned: true)
            if let memoryBytes { configuration.memoryBytes = memoryBytes }
            let server = try ImageServer(hoard: fixture.hoard, configuration: configuration)
            do {
                let warm = "/unsafe/w:40/plain/" + base + source
                let first = try await server.imageResponse(to: Self.route(warm), path: warm, query: nil)
                #expect(first.status == .ok)
                try await body(server, warm, base)
                try await server.shutdown()
            } catch {
                try? await server.shutdown()
                throw error
            }
        }
    }

    /// A request as the routes see it.
    static func route(_ path: String, _ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: nil, authority: nil, path: path, headerFields: fields)
    }

    /// A request as the handler sees it, from NIO's HTTP/1 decoder.
    static func request(_ path: String, method: HTTPMethod = .GET, _ fields: [(String, String)] = [], version: HTTPVersion = .http1_1)
        -> HTTPRequestHead
    {
        HTTPRequestHead(version: version, method: method, uri: path, headers: HTTPHeaders([("Host", "a")] + fields))
    }

    /// A channel with the handler alone, for `server`.
    static func channel(_ server: ImageServer, prefix: String = "") throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            CachedAnswerHandler(server: server, prefix: prefix, serverName: "hoard"))
        return channel
    }

    /// Sends a request without a body.
    static func send(_ request: HTTPRequestHead, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPServerRequestPart.head(request))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.pipeline.fireChannelReadComplete()
    }

    /// The parts the handler wrote, in order.
    static func written(_ channel: EmbeddedChannel) throws -> [HTTPServerResponsePart] {
        var parts: [HTTPServerResponsePart] = []
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) { parts.append(part) }
        return parts
    }

    /// The requests the handler passed on to the routes.
    static func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPServerRequestPart] {
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    @Test("a warm GET is answered with the routes' fields and bytes, plus Date and Server, and nothing is passed on")
    func warmAnswer() async throws {
        try await Self.withWarmServer { server, warm, _ in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            try Self.send(Self.request(warm), to: channel)
            let answer = try await server.imageResponse(to: Self.route(warm), path: warm, query: nil)
            let routes = answer.response(for: .get)
            let parts = try Self.written(channel)
            guard parts.count == 3, case .head(let head) = parts[0], case .body(.byteBuffer(let body)) = parts[1],
                case .end = parts[2]
            else {
                Issue.record("not a head, a body and an end: \(parts)")
                return
            }
            #expect(head.status == .ok && head.version == .http1_1)
            let fields = head.headers.filter { $0.name != "Date" && $0.name != "Server" }.map { "\($0.name): \($0.value)" }
            #expect(fields == routes.headers.map { "\($0.name.rawName): \($0.value)" })
            #expect(head.headers["Server"] == ["hoard"])
            let date = try #require(head.headers["Date"].first)
            let dated = try #require(HTTPDate.parse(date))
            #expect(abs(dated.timeIntervalSinceNow) < 5, "\(date)")
            #expect(body == answer.body && body.readableBytes > 100)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    @Test("without the server's memory, a variant on disk whose original is current is answered from the disk tier")
    func fromDisk() async throws {
        try await Self.withWarmServer(memoryBytes: 0) { server, warm, _ in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            try Self.send(Self.request(warm), to: channel)
            let parts = try Self.written(channel)
            guard parts.count == 3, case .head(let head) = parts[0], case .body(.byteBuffer(let body)) = parts[1] else {
                Issue.record("not answered from disk: \(parts)")
                return
            }
            let routes = try await server.imageResponse(to: Self.route(warm), path: warm, query: nil)
            #expect(head.status == .ok && body == routes.body)
            #expect(head.headers["ETag"] == [routes.headers[.eTag] ?? "-"])
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    @Test("a variant whose original is due for revalidation is passed on to the routes, which ask the origin")
    func staleOriginal() async throws {
        // /changing.jpg is stale at once (max-age=0).
        try await Self.withWarmServer(memoryBytes: 0, source: "/changing.jpg") { server, warm, _ in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            try Self.send(Self.request(warm), to: channel)
            #expect(try Self.written(channel).isEmpty)
            #expect(try Self.passedOn(channel).count == 2)
        }
    }

    @Test("HEAD carries GET's fields and length without the body; a matching If-None-Match gets the routes' 304")
    func headAndNotModified() async throws {
        try await Self.withWarmServer { server, warm, _ in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            try Self.send(Self.request(warm, method: .HEAD), to: channel)
            let parts = try Self.written(channel)
            guard parts.count == 2, case .head(let head) = parts[0], case .end = parts[1] else {
                Issue.record("not a head and an end: \(parts)")
                return
            }
            let get = try await server.imageResponse(to: Self.route(warm), path: warm, query: nil)
            #expect(head.headers["Content-Length"] == [String(get.body?.readableBytes ?? -1)])
            let tag = try #require(get.headers[.eTag])
            try Self.send(Self.request(warm, [("If-None-Match", tag)]), to: channel)
            let notModified = try Self.written(channel)
            guard case .head(let head304) = notModified.first else {
                Issue.record("no answer to the conditional request")
                return
            }
            #expect(head304.status == .notModified && head304.headers["Content-Type"].isEmpty)
            #expect(head304.headers["ETag"] == [tag] && notModified.count == 2)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    @Test("misses, queries, other methods, bad signatures, Connection: close and HTTP/1.0 are passed on untouched")
    func passesOn() async throws {
        try await Self.withWarmServer { server, warm, base in
            let requests = [
                Self.request("/unsafe/w:41/plain/" + base + "/photo.jpg"), Self.request(warm + "?x=1"),
                Self.request(warm, method: .POST), Self.request(warm, [("Connection", "close")]),
                Self.request(warm, version: .http1_0),
                Self.request("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/w:40/plain/" + base + "/photo.jpg"),
                Self.request("/health"),
            ]
            for request in requests {
                let channel = try Self.channel(server)
                defer { _ = try? channel.finish() }
                try Self.send(request, to: channel)
                #expect(try Self.written(channel).isEmpty, "\(request.uri)")
                let parts = try Self.passedOn(channel)
                guard parts.count == 2, case .head(let head) = parts[0], case .end = parts[1] else {
                    Issue.record("\(request.uri): passed on as \(parts)")
                    continue
                }
                #expect(head == request)
            }
        }
    }

    @Test("a warm request behind one the routes still answer is passed on too: answers keep their order")
    func order() async throws {
        try await Self.withWarmServer { server, warm, base in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            let miss = Self.request("/unsafe/w:42/plain/" + base + "/photo.jpg")
            try Self.send(miss, to: channel)
            try Self.send(Self.request(warm), to: channel)
            // Both went to the routes, in order; the handler wrote nothing.
            let passed = try Self.passedOn(channel).compactMap { part -> String? in
                if case .head(let head) = part { return head.uri }
                return nil
            }
            #expect(passed == [miss.uri, warm])
            #expect(try Self.written(channel).isEmpty)
            // The routes answer the first; the second is still theirs to answer. Once both have
            // ended, the handler answers again.
            for _ in 0..<2 {
                try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
                try channel.writeOutbound(HTTPServerResponsePart.end(nil))
            }
            _ = try Self.written(channel)
            try Self.send(Self.request(warm), to: channel)
            #expect(try Self.written(channel).count == 3)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    @Test("the answer waits for the request's end; a body is read and dropped")
    func waitsForEnd() async throws {
        try await Self.withWarmServer { server, warm, _ in
            let channel = try Self.channel(server)
            defer { _ = try? channel.finish() }
            try channel.writeInbound(HTTPServerRequestPart.head(Self.request(warm, [("Content-Length", "3")])))
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "abc")))
            #expect(try Self.written(channel).isEmpty)
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            #expect(try Self.written(channel).count == 3)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    @Test("below a prefix, only paths under it are answered, without the prefix in the key")
    func prefix() async throws {
        try await Self.withWarmServer { server, warm, _ in
            let channel = try Self.channel(server, prefix: "/images")
            defer { _ = try? channel.finish() }
            try Self.send(Self.request("/images" + warm), to: channel)
            #expect(try Self.written(channel).count == 3)
            try Self.send(Self.request(warm), to: channel)
            #expect(try Self.written(channel).isEmpty)
            #expect(try Self.passedOn(channel).count == 2)
        }
    }
}

/// Memory's answers on the wire, beside the routes' answers to the same requests.
@Suite("ImageServer's answers from memory on the event loop")
struct MemoryAnswerWireTests {
    @Test("a warm GET, HEAD and 304 carry the same status, fields (but Date) and bytes as the routes give")
    func sameAsRoutes() async throws {
        try await CachedAnswerHandlerTests.withWarmServer { server, warm, _ in
            typealias Seen = (status: HTTPResponse.Status, fields: [HTTPField], body: ByteBuffer)
            @Sendable func exchange(_ answersOnLoop: Bool) async throws -> [Seen] {
                try await ServerFixture.serve(server, answersOnLoop: answersOnLoop) { client in
                    let get = try await client.execute(uri: warm, method: .get)
                    let head = try await client.execute(uri: warm, method: .head)
                    let tag = try #require(get.headers[.eTag])
                    let notModified = try await client.execute(uri: warm, method: .get, headers: [.ifNoneMatch: tag])
                    let webP = try await client.execute(uri: warm, method: .get, headers: [.accept: "image/webp"])
                    return [get, head, notModified, webP].map { response in
                        (response.status, response.headers.filter { $0.name != .date }, response.body)
                    }
                }
            }
            let routes = try await exchange(false)
            let memory = try await exchange(true)
            #expect(routes.map(\.status) == [.ok, .ok, .notModified, .ok])
            for (route, answered) in zip(routes, memory) {
                #expect(route.status == answered.status)
                #expect(route.fields == answered.fields)
                #expect(route.body == answered.body)
            }
        }
    }
}
