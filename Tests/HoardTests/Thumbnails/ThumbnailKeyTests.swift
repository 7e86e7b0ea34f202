import Foundation
import HoardTestSupport
import HoardSystem
import Testing

@testable import HoardCore
@testable import HoardImage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("ThumbnailKey")
struct ThumbnailKeyTests {
    static let photo = "exif-orientation/Landscape_1.jpg"

    @Test("the key string: version, source, settings spelled as the tool's options")
    func keyString() throws {
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        let key = try ThumbnailKey(url: url, size: 256)
        #expect(key.key == "thumbnail/v4 https://example.com/a.jpg size=256 format=auto quality=85 filter=lanczos3 colour=srgb decode-scale=faithful")
        #expect(key.description == key.key && "\(key)" == key.key)
        let spelled = try ThumbnailKey(
            source: "https://example.com/a.jpg", size: 64, format: .png, quality: 70, filter: .catmullRom)
        #expect(
            spelled.key == "thumbnail/v4 https://example.com/a.jpg size=64 format=png quality=70 filter=catmull-rom colour=srgb decode-scale=faithful")
        let names = try Image.ResamplingFilter.allCases.map {
            try Self.setting("filter", of: ThumbnailKey(source: "s", size: 1, filter: $0))
        }
        #expect(Set(names) == ["box", "bilinear", "catmull-rom", "lanczos3"])
        let colours = try Image.ColourHandling.allCases.map {
            try Self.setting("colour", of: ThumbnailKey(source: "s", size: 1, colour: $0))
        }
        #expect(colours == ["srgb", "keep", "ignore"])
        let scales = try Image.DecodeScale.allCases.map {
            try Self.setting("decode-scale", of: ThumbnailKey(source: "s", size: 1, decodeScale: $0))
        }
        #expect(scales == ["faithful", "fast"])
        #expect(ThumbnailKey.Format.allCases.map(\.description) == ["auto", "jpeg", "png", "webp", "avif"])
    }

    @Test("a local file: its file URL, size and modification time to the nanosecond")
    func fileKey() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("photo one.jpg").path
        try Data("12345".utf8).write(to: URL(fileURLWithPath: path))
        // 2024-06-10 06:13:20.000001234 UTC.
        var times = [
            timespec(tv_sec: 1_718_000_000, tv_nsec: 1_234), timespec(tv_sec: 1_718_000_000, tv_nsec: 1_234),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let key = try ThumbnailKey(file: path, size: 128, format: .jpeg, quality: 90, filter: .box)
        let source = URL(fileURLWithPath: path, isDirectory: false).absoluteString
        #expect(source.hasSuffix("/photo%20one.jpg"))
        #expect(
            key.key
                == "thumbnail/v4 \(source) bytes=5 modified=1718000000.000001234 size=128 format=jpeg quality=90 filter=box colour=srgb decode-scale=faithful"
        )
        #expect(key.fingerprint == (try ThumbnailKey.FileFingerprint(file: path)))
        #expect(
            key.fingerprint
                == (try ThumbnailKey.FileFingerprint(
                    byteCount: 5, modificationSeconds: 1_718_000_000, modificationNanoseconds: 1_234)))
        // The same file named another way, or by URL, is the same key.
        let roundabout = folder.url.path + "/./sub/../photo one.jpg"
        #expect(try ThumbnailKey(file: roundabout, size: 128, format: .jpeg, quality: 90, filter: .box) == key)
        let byURL = try ThumbnailKey(
            url: URL(fileURLWithPath: path), size: 128, format: .jpeg, quality: 90, filter: .box)
        #expect(byURL == key)
        // An edit changes the key.
        try Data("123456".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try ThumbnailKey(file: path, size: 128, format: .jpeg, quality: 90, filter: .box) != key)
    }

    @Test("a URL's user name and password are replaced by their SHA-256 and never appear")
    func credentials() throws {
        let url = try #require(URL(string: "https://ann:s%40cret@example.com:8443/photos/a.jpg?x=1"))
        let key = try ThumbnailKey(url: url, size: 32)
        let digest = try #require(SHA256.hexDigest(Array("ann:s%40cret".utf8)))
        #expect(key.source == "https://\(digest)@example.com:8443/photos/a.jpg?x=1")
        #expect(!key.key.contains("ann") && !key.key.contains("cret"))
        let userOnly = try ThumbnailKey(url: try #require(URL(string: "http://token@example.com/a.png")), size: 32)
        #expect(userOnly.source == "http://\(try #require(SHA256.hexDigest(Array("token".utf8))))@example.com/a.png")
    }

    @Test("bad values and unusable sources are refused, naming what is wrong")
    func refusals() throws {
        func invalid(_ field: String, _ value: String, _ requirement: String) -> ThumbnailKeyError {
            .invalidValue(InvalidValueError(field: field, value: value, requirement: requirement))
        }
        #expect(throws: invalid("ThumbnailKey.size", "0", "at least 1")) { try ThumbnailKey(source: "s", size: 0) }
        #expect(throws: invalid("ThumbnailKey.quality", "101", "between 1 and 100")) {
            try ThumbnailKey(source: "s", size: 1, quality: 101)
        }
        #expect(throws: invalid("ThumbnailKey.quality", "0", "between 1 and 100")) {
            try ThumbnailKey(source: "s", size: 1, quality: 0)
        }
        for source in ["", "a b", "a\nsize=1"] {
            #expect(throws: ThumbnailKeyError.self) { try ThumbnailKey(source: source, size: 1) }
        }
        #expect(
            throws: invalid(
                "ThumbnailKey.FileFingerprint.modificationNanoseconds", "1000000000", "between 0 and 999999999")
        ) {
            try ThumbnailKey.FileFingerprint(
                byteCount: 1, modificationSeconds: 0, modificationNanoseconds: 1_000_000_000)
        }
        #expect(throws: invalid("ThumbnailKey.FileFingerprint.byteCount", "-1", "at least 0")) {
            try ThumbnailKey.FileFingerprint(byteCount: -1, modificationSeconds: 0, modificationNanoseconds: 0)
        }
        let missing = "/nonexistent-\(UUID().uuidString)/a.jpg"
        #expect(throws: ThumbnailKeyError.fileUnavailable(path: missing, call: "stat", errno: ENOENT)) {
            try ThumbnailKey(file: missing, size: 1)
        }
        let ftp = try #require(URL(string: "ftp://ann:secret@example.com/a.jpg"))
        do throws(ThumbnailKeyError) {
            _ = try ThumbnailKey(url: ftp, size: 1)
            Issue.record("an ftp URL made a key")
        } catch {
            #expect(error == .unsupportedURL("ftp://***@example.com/a.jpg"))
            #expect(!"\(error)".contains("secret"), "\(error)")
        }
        #expect(throws: ThumbnailKeyError.self) {
            try ThumbnailKey(url: try #require(URL(string: "https:///a.jpg")), size: 1)
        }
    }

    @Test("thumbnail(from:) and encoded(_:) make what the tool makes: format, quality, filter")
    func makesAndEncodes() throws {
        let photo = try TestFiles.testImage(Self.photo)
        let key = try ThumbnailKey(source: "s", size: 100, quality: 70, filter: .catmullRom)
        let thumbnail = try key.thumbnail(from: photo)
        #expect(thumbnail == (try Image.thumbnail(from: photo, fittingIn: 100, filter: .catmullRom)))
        #expect(thumbnail.width == 100 && thumbnail.height == 67)
        #expect(try key.encoded(thumbnail) == thumbnail.jpegData(quality: 70))
        let alpha = try Image(data: TestFiles.testImage("PngSuite/basn6a08.png"))
        #expect(try key.encoded(alpha) == alpha.pngData(), "auto: PNG when the image has alpha")
        let png = try ThumbnailKey(source: "s", size: 100, format: .png)
        #expect(try png.encoded(thumbnail) == thumbnail.pngData())
        let jpeg = try ThumbnailKey(source: "s", size: 100, format: .jpeg)
        #expect(ImageFormat(sniffing: try jpeg.encoded(alpha)) == .jpeg)
        let webp = try ThumbnailKey(source: "s", size: 100, format: .webp, quality: 70)
        #expect(try webp.encoded(thumbnail) == thumbnail.webpData(quality: 70))
    }

    @Test("WebP: lossy at the key's quality, lossless only for alpha at quality 100; its own key")
    func webp() throws {
        let alpha = try Image(data: TestFiles.testImage("PngSuite/basn6a08.png"))
        let opaque = try Image(data: TestFiles.testImage("libjpeg-turbo/testorig.jpg"))
        let chunk = { (data: Data) in String(decoding: data.dropFirst(12).prefix(4), as: UTF8.self) }
        let best = try ThumbnailKey(source: "s", size: 100, format: .webp, quality: 100)
        let lossless = try best.encoded(alpha)
        #expect(chunk(lossless) == "VP8L")
        #expect(try Image(data: lossless) == alpha, "alpha at quality 100: exact pixels")
        #expect(chunk(try best.encoded(opaque)) == "VP8 ", "opaque at quality 100: lossy")
        let almost = try ThumbnailKey(source: "s", size: 100, format: .webp, quality: 99)
        let lossy = try almost.encoded(alpha)
        #expect(chunk(lossy) == "VP8X")
        #expect(try Image(data: lossy).format == .rgba8, "lossy keeps alpha")
        let low = try ThumbnailKey(source: "s", size: 100, format: .webp, quality: 20)
        #expect(try low.encoded(opaque).count < best.encoded(opaque).count)
        let keys = try ThumbnailKey.Format.allCases.map {
            try ThumbnailKey(source: "https://example.com/a.jpg", size: 256, format: $0).key
        }
        #expect(Set(keys).count == ThumbnailKey.Format.allCases.count)
        #expect(keys[3] == "thumbnail/v4 https://example.com/a.jpg size=256 format=webp quality=85 filter=lanczos3 colour=srgb decode-scale=faithful")
        let avif = try ThumbnailKey(source: "s", size: 64, format: .avif).encoded(opaque)
        #expect(keys[4].contains(" format=avif ") && ImageFormat(sniffing: avif) == .avif)
    }

    @Test("Hoard stores a thumbnail under its key as an Image entry, encoded as the key says, and reads it back")
    func hoardRoundTrip() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let photo = try TestFiles.testImage(Self.photo)
        for format in ThumbnailKey.Format.allCases {
            let key = try ThumbnailKey(source: "https://example.com/a.jpg", size: 64, format: format, quality: 80)
            let thumbnail = try key.thumbnail(from: photo)
            try await hoard.store(thumbnail, forKey: key)
            let stored = try #require(try hoard.storedBytes(forKey: key.key))
            #expect(stored.typeIdentifier == Image.cacheTypeIdentifier)
            #expect(stored.bytes == (try key.encoded(thumbnail)), "\(format)")
            let read = try #require(try await hoard.retrieve(Image.self, forKey: key))
            #expect(read.width == 64 && read.height == 43)
            if format == .png { #expect(read == thumbnail, "PNG is lossless") }
            if format == .webp { #expect(ImageFormat(sniffing: stored.bytes) == .webp) }
            // The String-keyed API sees the same entry.
            #expect(try await hoard.retrieve(Image.self, forKey: key.description) != nil)
        }
        let missing = try ThumbnailKey(source: "https://example.com/b.jpg", size: 64)
        #expect(try await hoard.retrieve(Image.self, forKey: missing) == nil)
    }

    @Test("every keyed call takes a ThumbnailKey; fetched thumbnails are stored as the key says, not as the configuration's")
    func keyedCallsHonourTheKey() async throws {
        let fixture = try HoardFixture()
        defer { fixture.folder.remove() }
        let hoard = fixture.hoard
        let thumbnail = try ThumbnailKey(source: "https://example.com/a.jpg", size: 64)
            .thumbnail(from: try TestFiles.testImage(Self.photo))
        #expect(hoard.configuration.encodingOptions.jpegQuality != ThumbnailKey.defaultQuality)
        let keys = try [
            ThumbnailKey(source: "https://example.com/fetch.jpg", size: 64),
            ThumbnailKey(source: "https://example.com/fetch.png", size: 64, format: .png),
            ThumbnailKey(source: "https://example.com/fetch.webp", size: 64, format: .webp, quality: 70),
        ]
        for key in keys {
            let fetches = Counter()
            let fetched = try await hoard.value(forKey: key) {
                fetches.increment()
                return thumbnail
            }
            #expect(fetched == thumbnail)
            let expected = try key.encoded(thumbnail)
            #expect(try hoard.storedBytes(forKey: key)?.bytes == expected, "\(key.format)")
            #expect(try await hoard.retrieveEncoded(forKey: key) == expected)
            hoard.clearMemory()
            let again = try await hoard.entry(forKey: key) {
                fetches.increment()
                return thumbnail
            }
            #expect(again.source == .disk && fetches.value == 1)
            #expect(try await hoard.entry(forKey: key)?.value == again.value)
            try await hoard.remove(forKey: key)
            #expect(try hoard.storedBytes(forKey: key) == nil)
        }
        // Cache-then-fetch: the stream's fetched value is stored as the key says too.
        let streamed = try ThumbnailKey(source: "https://example.com/stream.jpg", size: 64, quality: 40)
        var seen = 0
        for try await value in hoard.values(forKey: streamed, fetch: { thumbnail }) {
            #expect(value == thumbnail)
            seen += 1
        }
        #expect(seen == 1)
        #expect(try hoard.storedBytes(forKey: streamed)?.bytes == (try streamed.encoded(thumbnail)))
        // Completion forms, in order on the key.
        let done = AsyncStream.makeStream(of: Image?.self)
        hoard.store(key: streamed, object: thumbnail)
        hoard.retrieve(key: streamed) { done.continuation.yield($0) }
        hoard.remove(streamed)
        hoard.retrieve(key: streamed) { done.continuation.yield($0) }
        var iterator = done.stream.makeAsyncIterator()
        #expect(await iterator.next()??.width == 64)
        #expect(await iterator.next() == .some(nil))
    }

    /// The value `name=` has in `key`'s string.
    static func setting(_ name: String, of key: ThumbnailKey) -> String {
        key.key.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
    }
}

/// A count shared with a fetch closure.
private final class Counter: Sendable {
    private let count = Lock(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }

}
