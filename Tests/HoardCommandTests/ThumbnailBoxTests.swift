import Foundation
import Hoard
import HoardTestSupport
import Testing

/// `--size WxH`, `--fit fill` with `--gravity`, and `--name`: what vipsthumbnail's `-s`, `-c`
/// and `-o` do.
@Suite("hoard thumbnails boxes, crops and names")
struct ThumbnailBoxTests {
    static let photo = WebPOutputTests.photo  // 1800 x 1200

    /// The run's results: (output path, width, height) per input, and the outcome.
    static func run(_ inputs: [String], _ arguments: [String], scratch: Scratch) async throws
        -> (results: [(path: String?, width: Int?, height: Int?)], outcome: HoardTool.Outcome)
    {
        let outcome = try await HoardTool.run(
            ["thumbnails"] + inputs + ["--output", scratch.path("out"), "--cache", scratch.path("cache"), "--json"]
                + arguments)
        let results = (try outcome.summary()["results"] as? [[String: Any]]) ?? []
        return (results.map { ($0["output"] as? String, $0["width"] as? Int, $0["height"] as? Int) }, outcome)
    }

    @Test("a box fits both sides; fill covers and crops it; the gravity picks the part kept, smart too")
    func boxes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fitted = try await Self.run([Self.photo], ["--size", "300x100"], scratch: scratch)
        #expect(fitted.results.first?.width == 150 && fitted.results.first?.height == 100)
        let filled = try await Self.run([Self.photo], ["--size", "300x100", "--fit", "fill"], scratch: scratch)
        #expect(filled.results.first?.width == 300 && filled.results.first?.height == 100)
        var images: [String: Image] = [:]
        for gravity in ["north", "south", "smart"] {
            let run = try await Self.run([Self.photo], ["--size", "300x100", "--fit", "fill", "--gravity", gravity, "--format", "png"],
                                         scratch: scratch)
            let path = try #require(run.results.first?.path, "\(run.outcome.standardError)")
            images[gravity] = try Image(data: Data(contentsOf: URL(fileURLWithPath: path)))
        }
        let north = try #require(images["north"])
        let south = try #require(images["south"])
        #expect(north.width == 300 && north.height == 100 && north.pixels != south.pixels)
        #expect(images["smart"]?.width == 300)
    }

    @Test("two sizes into one folder make two files; a run again writes the same names")
    func distinctNames() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let small = try await Self.run([Self.photo], ["--size", "64"], scratch: scratch)
        let large = try await Self.run([Self.photo], ["--size", "128"], scratch: scratch)
        let smallPath = try #require(small.results.first?.path)
        let largePath = try #require(large.results.first?.path)
        #expect(smallPath != largePath && smallPath.hasSuffix("-64.jpg") && largePath.hasSuffix("-128.jpg"))
        #expect(try Image(data: Data(contentsOf: URL(fileURLWithPath: smallPath))).width == 64)
        #expect(try Image(data: Data(contentsOf: URL(fileURLWithPath: largePath))).width == 128)
        let again = try await Self.run([Self.photo], ["--size", "64"], scratch: scratch)
        #expect(again.results.first?.path == smallPath)
    }

    @Test("--name: placeholders filled, the thumbnail's own size among them; a name two inputs share fails the second")
    func templates() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let named = try await Self.run([Self.photo], ["--size", "90", "--name", "{name}-{width}x{height}.{ext}"], scratch: scratch)
        #expect(named.results.first?.path?.hasSuffix("/Landscape_1-90x60.jpg") == true, "\(named.results)")
        let other = testImages.appendingPathComponent("exif-orientation/Landscape_6.jpg").path
        let clash = try await Self.run([Self.photo, other], ["--size", "50", "--name", "thumb.{ext}"], scratch: scratch)
        #expect(clash.outcome.status == 1)
        #expect(clash.outcome.standardError.contains("{hash}") || clash.outcome.standardOutput.contains("{hash}"))
        let written = try #require(clash.results.compactMap(\.path).first)
        #expect(FileManager.default.fileExists(atPath: written))
        #expect(clash.results.compactMap(\.path).count == 1)
    }
}
