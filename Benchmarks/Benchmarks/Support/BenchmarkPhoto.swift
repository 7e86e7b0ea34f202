import Foundation
import Hoard

/// A photo for the codec and pipeline benchmarks: its encoded bytes and its decoded image.
///
/// `$HOARD_BENCH_IMAGES` chooses the photos: a JPEG or PNG file, or a folder whose first `.jpg` and
/// first `.png` (sorted by name) are taken, looking in its `jpg/` and `png/` subfolders too, which
/// is the layout `Benchmarks/peers/prepare_images.py` makes (so `Benchmarks/.results/img`, where
/// `compare` prepares it, gives `jpg/Aqua.jpg` and `png/Aqua.png`, the photo of compare's codec
/// rows). Without the variable, `TestImages/exif-orientation/Landscape_1.jpg` of this repository
/// (1800 x 1200) is used, so the benchmarks run from a fresh clone. A format that has no file is
/// made by re-encoding the other photo with Hoard: PNG at the default compression level, JPEG at
/// quality 90.
///
/// ```swift
/// let photo = try BenchmarkPhoto.jpeg
/// print(photo.name, photo.image.width, photo.megapixels)
/// ```
public struct BenchmarkPhoto: Sendable {
    /// The environment variable that names the photo file or folder.
    public static let environmentVariable = "HOARD_BENCH_IMAGES"

    /// Where the photo came from: a file name, or "<name> re-encoded as PNG".
    public let name: String
    /// The encoded file.
    public let data: Data
    /// The decoded pixels, EXIF orientation not applied.
    public let image: Image

    /// The number of pixels of ``image``, in millions.
    public var megapixels: Double { Double(image.width * image.height) / 1e6 }

    /// The JPEG photo.
    ///
    /// - Throws: The reading or decoding error when the chosen file cannot be used.
    public static var jpeg: BenchmarkPhoto {
        get throws { try loaded.get().jpeg }
    }

    /// The PNG photo.
    ///
    /// - Throws: The reading or decoding error when the chosen file cannot be used.
    public static var png: BenchmarkPhoto {
        get throws { try loaded.get().png }
    }

    /// Decoding options that measure the codec alone: no EXIF rotation afterwards.
    public static var decodingOptions: Image.DecodingOptions {
        var options = Image.DecodingOptions()
        options.appliesOrientation = false
        return options
    }

    /// Both photos, read and decoded on first use, once per process.
    private static let loaded = Result { () throws -> (jpeg: BenchmarkPhoto, png: BenchmarkPhoto) in
        let files = try locateFiles()
        let jpeg = try files.jpeg.map(BenchmarkPhoto.init(contentsOf:))
        let png = try files.png.map(BenchmarkPhoto.init(contentsOf:))
        switch (jpeg, png) {
        case (let jpeg?, let png?):
            return (jpeg, png)
        case (let jpeg?, nil):
            return (
                jpeg,
                try BenchmarkPhoto(
                    image: jpeg.image, name: "\(jpeg.name) re-encoded as PNG", data: jpeg.image.pngData())
            )
        case (nil, let png?):
            let opaque = png.image.hasAlpha ? png.image.flattened(onto: 255) : png.image
            return (
                try BenchmarkPhoto(image: opaque, name: "\(png.name) re-encoded as JPEG", data: opaque.jpegData()), png
            )
        case (nil, nil):
            throw BenchmarkPhotoError.noPhoto(path: files.searched)
        }
    }

    private init(image: Image, name: String, data: Data) {
        self.image = image
        self.name = name
        self.data = data
    }

    private init(contentsOf url: URL) throws {
        data = try Data(contentsOf: url)
        image = try Image(data: data, options: Self.decodingOptions)
        name = url.lastPathComponent
    }

    /// The JPEG and PNG files that `$HOARD_BENCH_IMAGES` (or the default) names.
    private static func locateFiles() throws -> (jpeg: URL?, png: URL?, searched: String) {
        guard let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty else {
            return (defaultPhoto, nil, defaultPhoto.path)
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BenchmarkPhotoError.noPhoto(path: path)
        }
        guard isDirectory.boolValue else {
            let isPNG = url.pathExtension.lowercased() == "png"
            return (isPNG ? nil : url, isPNG ? url : nil, path)
        }
        func first(withExtensions extensions: Set<String>, subfolder: String) -> URL? {
            for folder in [url, url.appendingPathComponent(subfolder)] {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                if let name = names.sorted().first(where: {
                    extensions.contains(($0 as NSString).pathExtension.lowercased())
                }) {
                    return folder.appendingPathComponent(name)
                }
            }
            return nil
        }
        return (
            first(withExtensions: ["jpg", "jpeg"], subfolder: "jpg"), first(withExtensions: ["png"], subfolder: "png"),
            path
        )
    }

    /// `TestImages/exif-orientation/Landscape_1.jpg`, found from this source file's place in the repository.
    private static var defaultPhoto: URL {
        URL(fileURLWithPath: #filePath)  // <repo>/Benchmarks/Benchmarks/Support/BenchmarkPhoto.swift
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("TestImages/exif-orientation/Landscape_1.jpg")
    }
}
