import Foundation
import HoardServer
import Testing

/// imgproxy's URLs, read as imgproxy's processing documentation writes them.
@Suite("imgproxy's options")
struct ImgproxyOptionsTests {
    static let source = "http://example.com/images/curiosity.jpg"
    static let plain = "plain/" + source

    static func options(_ text: String, style: ImagePath.Style = .imgproxy, presets: [String: [String]] = [:]) throws
        -> ProcessingOptions
    {
        try ImagePath(parsing: text, presets: presets, style: style).options
    }

    @Test("the documentation's example: a preset, rs:fill:300:400:0, g:sm, and @png after a plain source")
    func documentedExample() throws {
        let presets = ["sharp": ["q:90"]]
        let long = try Self.options(
            "/sig/preset:sharp/resize:fill:300:400:0/gravity:sm/plain/\(Self.source)@png", presets: presets)
        let short = try Self.options("/sig/pr:sharp/rs:fill:300:400:0/g:sm/\(Self.plain)@png", presets: presets)
        var expected = ProcessingOptions(width: 300, height: 400)
        expected.fit = .fill
        expected.gravity = .smart
        expected.quality = 90
        expected.format = .png
        #expect(long == expected)
        #expect(short == expected)
        // The same URL with the source in Base64, split where the documentation splits it, then .png.
        let path = try ImagePath(
            parsing: "/sig/pr:sharp/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png",
            presets: presets, style: .imgproxy)
        #expect(path.options == expected)
        #expect(path.source == .remote(URL(string: Self.source)!))
    }

    @Test("full and short names read alike")
    func names() throws {
        let pairs = [
            ("resize:fit:100:50:1:1", "rs:fit:100:50:t:true"), ("size:100:50", "s:100:50"),
            ("resizing_type:force", "rt:force"), ("width:100", "w:100"), ("height:50", "h:50"),
            ("min-width:10", "mw:10"), ("min-height:10", "mh:10"), ("enlarge:1", "el:t"), ("extend:1:so", "ex:true:so"),
            ("gravity:noea:5:0.1", "g:noea:5:0.1"), ("crop:100:0.5:we", "c:100:0.5:we"), ("quality:70", "q:70"),
            ("format:webp", "f:webp"), ("format:jpg", "ext:jpeg"), ("background:255:0:10", "bg:ff000a"),
            ("blur:1.5", "bl:1.5"), ("sharpen:0.5", "sh:0.5"), ("auto_rotate:1", "ar:true"), ("strip_metadata:1", "sm:1"), ("cachebuster:v2", "cb:v2"),
            ("expires:4102444800", "exp:4102444800"),
        ]
        for (long, short) in pairs {
            let a = try Self.options("/s/w:100/\(long)/\(Self.plain)")
            let b = try Self.options("/s/w:100/\(short)/\(Self.plain)")
            #expect(a == b, "\(long) / \(short)")
        }
    }

    @Test("arguments: each has its default when left empty; booleans as imgproxy reads them")
    func arguments() throws {
        var options = try Self.options("/s/rs::300/\(Self.plain)")
        #expect(options.fit == .fit && options.width == 300 && options.height == 0)
        options = try Self.options("/s/rs:fill-down:0:200:1:1:nowe:10:20/\(Self.plain)")
        #expect(options.fit == .fillDown && options.height == 200 && options.enlarges)
        #expect(options.extend == .init(.northWest, x: 10, y: 20))
        options = try Self.options("/s/g:fp:0.25:0.75/bg:#336699/\(Self.plain)")
        #expect(options.placement == .init(.focusPoint, x: 0.25, y: 0.75))
        #expect(options.background == .init(red: 0x33, green: 0x66, blue: 0x99))
        options = try Self.options("/s/g:ce:-10:0/el:FALSE/q:0/\(Self.plain)")
        #expect(options.placement.x == -10 && !options.enlarges && options.quality == nil)
        #expect(try Self.options("/s/cb:a:b/\(Self.plain)").cacheBuster == "a:b")
    }

    @Test("a width alone: a square box in Hoard's style, that width in imgproxy's")
    func loneWidth() throws {
        #expect(try Self.options("/s/w:300/\(Self.plain)", style: .hoard).height == nil)
        #expect(try Self.options("/s/w:300/\(Self.plain)", style: .hoard).outputHeight == 300)
        #expect(try Self.options("/s/w:300/\(Self.plain)", style: .imgproxy).height == 0)
        #expect(try Self.options("/s/w:300/h:0/\(Self.plain)", style: .hoard).height == 0)
        // Hoard's fill has always kept the box's proportions: imgproxy's fill-down.
        #expect(try Self.options("/s/w:300/h:200/fit:fill/\(Self.plain)", style: .hoard).fit == .fillDown)
    }

    @Test("insecure is unsigned, as unsafe is")
    func insecure() throws {
        #expect(try ImagePath(parsing: "/insecure/w:10/\(Self.plain)").signature == nil)
        #expect(try ImagePath.signature(of: "/insecure/w:10/x").signature == nil)
        #expect(try ImagePath(parsing: "/insecurely/w:10/\(Self.plain)").signature == "insecurely")
    }

    @Test("presets: pr with several names, a default preset first, a preset naming a preset refused")
    func presets() throws {
        let presets = ["default": ["q:60", "f:webp"], "small": ["s:64:64"], "jpeg": ["f:jpg"]]
        let options = try Self.options("/s/pr:small:jpeg/\(Self.plain)", presets: presets)
        #expect(options.quality == 60 && options.format == .jpeg && options.width == 64)
        #expect(throws: ServeError.self) {
            try ImagePath(parsing: "/s/pr:bad/\(Self.plain)", presets: ["bad": ["pr:small"]], style: .imgproxy).options
        }
    }

    @Test("options Hoard does not support answer 400 naming the option", arguments: [
        ("zoom:2", "zoom"), ("rot:90", "rot"), ("wm:0.5", "wm"), ("bl:-1", "bl: \"-1\""), ("sh:101", "sh: 101"),
        ("ar:0", "ar: false"), ("sm:false", "sm: false"), ("ex:1:sm", "smart gravity does not place"), ("g:sm:1:2", "too many"), ("f:gif", "f: \"gif\""),
        ("rt:stretch", "rt: \"stretch\""), ("el:maybe", "el: \"maybe\""), ("g:up", "g: \"up\""),
        ("bg:12:34", "bg:"), ("g:fp:2:0.5", "g: a focus point"), ("c:-1:10", "c: \"-1\""), ("rs:fit:1:2:0:0:ce:1:2:3", "rs: too many"),
    ])
    func unsupported(option: String, named: String) {
        do {
            _ = try ImagePath(parsing: "/s/w:10/\(option)/\(Self.plain)", style: .imgproxy)
            Issue.record("\(option) was accepted")
        } catch {
            #expect(error.status == 400)
            #expect(error.reason.contains(named), "\(error.reason)")
        }
    }

    @Test("the extension after a source sets the format; an @ inside the source is percent-encoded")
    func extensions() throws {
        let path = try ImagePath(parsing: "/s/w:10/plain/http://example.com/a%40b.jpg@webp")
        #expect(path.options.format == .webp)
        #expect(path.source == .remote(URL(string: "http://example.com/a@b.jpg")!))
        #expect(throws: ServeError.self) { try ImagePath(parsing: "/s/w:10/plain/http://example.com/a.jpg@tiff") }
    }

    @Test("a signed part reads back to the same options in both styles")
    func signedPartRoundTrip() throws {
        var options = ProcessingOptions(width: 300, height: 200)
        options.fit = .fill
        options.placement = .init(.southWest, x: 4, y: 0.5)
        options.enlarges = true
        options.extend = .init(.north)
        options.minimumWidth = 10
        options.crop = .init(width: 0.5, height: 120, placement: .init(.focusPoint, x: 0.25, y: 0.5))
        options.background = .init(red: 1, green: 2, blue: 3)
        options.quality = 70
        options.format = .png
        options.cacheBuster = "v3"
        options.blur = 1.5
        options.sharpen = 0.5
        options.expires = 4_102_444_800
        let part = try ImagePath.signedPart(options: options, source: .remote(URL(string: Self.source)!))
        for style in ImagePath.Style.allCases {
            #expect(try ImagePath(parsing: "/unsafe" + part, style: style).options == options)
        }
        let square = try ImagePath.signedPart(options: ProcessingOptions(width: 64), source: .remote(URL(string: Self.source)!))
        #expect(try ImagePath(parsing: "/unsafe" + square, style: .imgproxy).options.outputHeight == 64)
    }
}
