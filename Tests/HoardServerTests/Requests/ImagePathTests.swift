import Foundation
import HoardServer
import Testing

@Suite("ImagePath")
struct ImagePathTests {
    static let source = "https://images.example/photos/a.jpg"
    static var encoded: String {
        Data(source.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    @Test("every option, with the source as Base64 and as plain/")
    func everyOption() throws {
        for sourceSegment in [Self.encoded, "plain/https%3A%2F%2Fimages.example%2Fphotos%2Fa.jpg",
                              "plain/https://images.example/photos/a.jpg"] {
            let text = "/sig/w:300/h:200/fit:fill/g:ne/dpr:1.5/q:70/f:webp/" + sourceSegment
            let path = try ImagePath(parsing: text)
            #expect(path.signature == "sig")
            #expect(path.signedPart == String(text.dropFirst(4)))
            #expect(path.source == .remote(URL(string: Self.source)!))
            var expected = ProcessingOptions(width: 300, height: 200)
            expected.fit = .fillDown  // Hoard's fill keeps the box's proportions
            expected.gravity = .northEast
            expected.pixelRatio = 1.5
            expected.quality = 70
            expected.format = .webp
            #expect(path.options == expected)
            #expect(path.options.outputWidth == 450 && path.options.outputHeight == 300)
        }
    }

    @Test("a local source that fits the limit as written but not percent-encoded is refused: every accepted source reads back")
    func longLocalSource() throws {
        let name = String(repeating: "é", count: 100)  // 200 bytes as text, 600 percent-encoded
        let path = "local:///" + Array(repeating: name, count: 8).joined(separator: "/")  // 1,617 bytes; 4,817 encoded
        #expect(throws: ServeError.self) { try ImageSource(parsing: path) }
        let fits = try ImageSource(parsing: "local:///" + name)
        #expect(try ImageSource(parsing: fits.description) == fits)
    }

    @Test("no options: the source's own size (a box of 0 x 0), as imgproxy reads it")
    func noOptions() throws {
        let path = try ImagePath(parsing: "/s/" + Self.encoded)
        #expect(path.options.outputWidth == 0 && path.options.outputHeight == 0)
    }

    @Test("defaults: a square box, fit, centre, dpr 1, the default quality, auto; unsafe is unsigned")
    func defaults() throws {
        let path = try ImagePath(parsing: "/unsafe/w:256/" + Self.encoded)
        #expect(path.signature == nil)
        #expect(path.options == ProcessingOptions(width: 256))
        #expect(path.options.outputHeight == 256)
        #expect(path.options.format == .auto && path.options.quality == nil && path.options.fit == .fit)
    }

    @Test("presets expand where they stand; later options override; presets-only refuses the rest")
    func presets() throws {
        let presets = ["thumb": ["w:128", "f:jpeg", "q:60"], "wide": ["w:800", "h:200", "fit:fill"]]
        let path = try ImagePath(parsing: "/s/p:thumb/q:90/" + Self.encoded, presets: presets)
        #expect(path.options.width == 128 && path.options.quality == 90 && path.options.format == .jpeg)
        let onlyPreset = try ImagePath(parsing: "/s/p:wide/" + Self.encoded, presets: presets, presetsOnly: true)
        #expect(onlyPreset.options.fit == .fillDown && onlyPreset.options.height == 200)
        #expect(throws: ServeError.badOptions("only presets (p:NAME) are allowed")) {
            try ImagePath(parsing: "/s/p:wide/q:90/" + Self.encoded, presets: presets, presetsOnly: true)
        }
        #expect(throws: ServeError.badOptions("p: no preset named \"nope\"")) {
            try ImagePath(parsing: "/s/p:nope/" + Self.encoded, presets: presets)
        }
    }

    @Test("malformed paths and values out of range are 400s", arguments: [
        "", "/", "//w:1/x", "w:256/x", "/s/w:256", "/s/w:256/",
        "/s/w:0/x", "/s/w:-1/x", "/s/w:8193/x", "/s/w:5000/dpr:2/x", "/s/w:abc/x", "/s/w:1e3/x", "/s/w:0256000/x",
        "/s/w:10/h:0/x", "/s/w:10/q:0/x", "/s/w:10/q:101/x", "/s/w:10/dpr:0.5/x", "/s/w:10/dpr:nan/x",
        "/s/w:10/dpr:inf/x", "/s/w:10/dpr:5/x", "/s/w:10/dpr:1.333/x", "/s/w:10/fit:stretch/x", "/s/w:10/g:up/x", "/s/w:10/f:gif/x",
        "/s/w:10/zoom:2/x", "/s/w:10/a/b", "/s/w:10/!!!", "/s/w:10/plain/", "/s/w:10/plain/%zz",
        "/s/w:10/plain/ftp%3A%2F%2Fa.example%2Fx", "/s/w:10/plain/https%3A%2F%2F", "/s/w:10/plain/file:///etc/passwd",
        "/s/w:10/plain/https://user:pw@a.example/x.jpg", "/s/w:10/plain/https://a.example/x.jpg%23frag",
        "/s/w:10/plain/https://a.example/a%20b.jpg", "/s/w:10/plain/https://a.example/%C3%BC.jpg",
        "/s/w:10/plain/https://a.example/a%7Cb.jpg", "/s/w:10/plain/https://a.example/a%00.jpg",
        "/s/w:10/plain/local:///../etc/passwd", "/s/w:10/plain/local:///a/../../b", "/s/w:10/plain/local:///./a",
        "/s/w:10/plain/local:///", "/s/w:10/plain/local:///a%00b",
        "/s/w:10/" + String(repeating: "A", count: 9000),
    ])
    func refused(path: String) {
        #expect(throws: ServeError.self) { try ImagePath(parsing: path) }
        do {
            _ = try ImagePath(parsing: path)
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test("a slash hidden in a Character (\"/\" + a combining mark) still splits a local path")
    func hiddenSlash() {
        #expect(throws: ServeError.self) { try ImageSource(parsing: "local:///../\u{301}") }
        #expect(!ImageSource.isPlainName("a/\u{301}") && ImageSource.isPlainName("a\u{301}"))
    }

    @Test("the signature segment is split off before anything else is parsed")
    func signatureFirst() throws {
        #expect(try ImagePath.signature(of: "/abc/w:1/x") == ("abc", "/w:1/x"))
        #expect(try ImagePath.signature(of: "/unsafe/p:nope") == (nil, "/p:nope"))
        for path in ["", "/", "//x", "abc/w:1", "/abc"] {
            #expect(throws: ServeError.self) { try ImagePath.signature(of: path) }
        }
    }

    @Test("a local source is a URL: its components are percent-decoded once; encoded slashes, dots and NUL stay refused")
    func localSources() throws {
        let path = try ImagePath(parsing: "/s/w:10/plain/local%3A%2F%2F%2Fphotos%2Fa.jpg")
        #expect(path.source == .local(["photos", "a.jpg"]))
        #expect(try ImageSource(parsing: "local:///caf%C3%A9%201.jpg") == .local(["café 1.jpg"]))
        #expect(try ImageSource(parsing: "local:///caf%C3%A9%201.jpg").description == "local:///caf%C3%A9%201.jpg")
        #expect(try ImageSource(parsing: "local:///caf%C3%A9%201.jpg") == ImageSource(parsing: "local:///café%201.jpg"))
        // A plain source is itself percent-encoded once (as imgproxy's are): the URL inside is decoded once more.
        #expect(try ImagePath(parsing: "/s/w:10/plain/local:///caf%25C3%25A9.jpg").source == .local(["café.jpg"]))
        // Round trip: what `hoard url` signs (Base64 of the description) is what the server reads.
        let source = ImageSource.local(["a b", "%zz", "é.jpg"])
        #expect(try ImageSource(parsing: source.description) == source)
        for refused in [
            "local:///a%2Fb.jpg", "local:///%2e%2e/a.jpg", "local:///a/%2E/b.jpg", "local:///a%00b", "local:///a%0Ab",
            "local:////x.jpg", "local:///a/", "local:///a//b.jpg", "local://x.jpg", "local:/x.jpg", "local:///%zz",
        ] {
            #expect(throws: ServeError.self, "\(refused)") { try ImageSource(parsing: refused) }
        }
        #expect(throws: ServeError.self) { try ImagePath(parsing: "/s/w:10/plain/local:///photos/%252e%252e/a.jpg") }
    }
}
