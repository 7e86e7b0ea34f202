import Foundation
import Hoard
import HoardServer
import HoardTestSupport
import Testing

/// Headless Chromium, where installed (Debian's `chromium`; `scripts/install-deps --browser`).
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

@Suite(
    "hoard serve in a real browser",
    .enabled(if: Chromium.path != nil, "Chromium is not installed (scripts/install-deps --browser adds it)"))
struct ServeBrowserTests {
    /// The page's background. With `HOARD_BROWSER_SCREENSHOT=<path>` the first screenshot is copied
    /// there (docs/serve-browser.png is one).
    static let pink: (UInt8, UInt8, UInt8) = (255, 0, 255)

    @Test("Chromium shows every image of a page, sent its own Accept and got AVIF, and a reload revalidates with 304")
    func page() async throws {
        let chromium = try #require(Chromium.path)
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let root = scratch.url(for: "root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.photo().write(to: root.appending(path: "photo.jpg"))
        let environment = [
            URLSigner.keyVariable: "00112233445566778899aabbccddeeff", URLSigner.saltVariable: "0a0b",
        ]
        // max-age 0: a reload must revalidate (with If-None-Match) rather than use the browser's cache.
        let server = try BackgroundTool(
            ["serve", "--bind", "127.0.0.1:0", "--cache", scratch.url(for: "cache").path, "--root", root.path,
             "--max-age", "0"],
            folder: scratch.url(for: "serve").path, environment: environment)
        defer { server.send(SIGKILL) }
        // A loaded 2-core machine may stall the server or the test for tens of seconds.
        let log = try #require(try await server.waitForError(containing: "listening on http://", timeLimit: .seconds(120)))
        let base = String(try #require(log.split(separator: "listening on ").last?.split(separator: "\n").first))
        let signer = try URLSigner(keys: environment[URLSigner.keyVariable]!, salts: environment[URLSigner.saltVariable]!)
        let source = try ImageSource(parsing: "local:///photo.jpg")
        let boxes: [(x: Int, y: Int, options: ProcessingOptions)] = [
            (10, 10, ProcessingOptions(width: 200)), (220, 10, Self.fill(200, 150, .east)),
            (10, 220, Self.fill(200, 150, .west)), (220, 220, ProcessingOptions(width: 200, height: 150)),
        ]
        var page = #"<!doctype html><html><body style="margin:0;background:#ff00ff">"#
        for box in boxes {
            let path = try signer.signedPath(ImagePath.signedPart(options: box.options, source: source))
            page += #"<img style="position:absolute;left:\#(box.x)px;top:\#(box.y)px" width="200" height="150" src="\#(base + path)">"#
        }
        page += "</body></html>"
        let pagePath = URL(fileURLWithPath: scratch.path + "/page.html", isDirectory: false)
        try Data(page.utf8).write(to: pagePath)

        let screenshot = URL(fileURLWithPath: scratch.path + "/shot.png", isDirectory: false)
        try await Self.run(chromium, page: pagePath, screenshot: screenshot, profile: scratch.url(for: "profile"))
        let image = try Image(data: Data(contentsOf: screenshot)).converted(to: .rgb8)
        if let keep = ProcessInfo.processInfo.environment["HOARD_BROWSER_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: screenshot.path, toPath: keep)
        }
        for box in boxes {
            for (dx, dy) in [(20, 20), (100, 75), (180, 130)] {
                #expect(!Self.isPink(image, box.x + dx, box.y + dy), "no image at (\(box.x + dx), \(box.y + dy))")
            }
        }
        #expect(Self.isPink(image, 500, 400), "the page's background shows where there is no image")

        let firstLog = try #require(
            try await server.waitForError(containing: " GET", lines: boxes.count, timeLimit: .seconds(120)))
        let requests = firstLog.split(separator: "\n").filter { $0.contains(" GET") }
        #expect(requests.count == boxes.count, "\(requests)")
        #expect(requests.allSatisfy { $0.contains("accept=image/") && $0.contains("image/avif") && $0.contains("status=200") })
        #expect(requests.allSatisfy { $0.contains("type=image/avif") }, "Chromium's Accept names AVIF first: \(requests)")

        // The same page again, with the same profile: every image revalidated, every answer a 304.
        try await Self.run(chromium, page: pagePath, screenshot: URL(fileURLWithPath: scratch.path + "/shot2.png", isDirectory: false), profile: scratch.url(for: "profile"))
        let secondLog = try #require(
            try await server.waitForError(containing: " GET", lines: 2 * boxes.count, timeLimit: .seconds(120)))
        let later = secondLog.split(separator: "\n").filter { $0.contains(" GET") }.dropFirst(requests.count)
        #expect(later.count == boxes.count && later.allSatisfy { $0.contains("status=304") }, "\(later)")
        server.send(SIGTERM)
        // A watchdog only: a loaded 2-core machine may stall the server's shutdown for tens of seconds.
        #expect(try await server.finish(timeLimit: .seconds(120)).status == 0)
    }

    static func fill(_ width: Int, _ height: Int, _ gravity: ProcessingOptions.Gravity) -> ProcessingOptions {
        var options = ProcessingOptions(width: width, height: height)
        options.fit = .fill
        options.gravity = gravity
        return options
    }

    /// A 600×450 photo-like JPEG: colours everywhere, none of them the page's pink.
    static func photo() throws -> Data {
        var pixels = [UInt8](repeating: 0, count: 600 * 450 * 3)
        for y in 0..<450 {
            for x in 0..<600 {
                let index = (y * 600 + x) * 3
                pixels[index] = UInt8(x * 200 / 599)
                pixels[index + 1] = UInt8(40 + y * 200 / 449)
                pixels[index + 2] = UInt8((x / 50 + y / 50) % 2 * 120)
            }
        }
        return try Image(width: 600, height: 450, format: .rgb8, pixels: pixels).jpegData(quality: 90)
    }

    static func isPink(_ image: Image, _ x: Int, _ y: Int) -> Bool {
        let index = (y * image.width + x) * 3
        let (r, g, b) = (image.pixels[index], image.pixels[index + 1], image.pixels[index + 2])
        return r > 235 && g < 20 && b > 235
    }

    /// Loads `page` in headless Chromium and saves a 600×450 screenshot (at most 60 s).
    static func run(_ chromium: String, page: URL, screenshot: URL, profile: URL) async throws {
        let outcome = try await HoardTool.runProgram(
            chromium,
            ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + profile.path,
             "--window-size=600,450", "--virtual-time-budget=5000", "--screenshot=" + screenshot.path, page.absoluteString],
            timeLimit: .seconds(60))
        #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome.standardError.suffix(2000))")
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "no screenshot: \(outcome.standardError.suffix(2000))")
    }
}
