import Foundation
import Hoard

/// Everything that changes a thumbnail's bytes, and where it goes.
struct ThumbnailSettings: Sendable {
    let size: Int
    let format: OutputFormat
    let quality: Int
    let outputDirectory: URL

    /// The cache key of a thumbnail: the source (for a local file, also its size and modification
    /// time, so an edited file is thumbnailed again) and every setting that changes the output.
    func thumbnailKey(for source: InputSource) -> String {
        "thumbnail/v1 \(source.identifier)\(Self.fingerprint(of: source)) size=\(size) format=\(format.rawValue) quality=\(quality)"
    }

    /// The cache key of a downloaded original.
    static func originalKey(for url: URL) -> String {
        "original/v1 \(url.absoluteString)"
    }

    /// Encodes a thumbnail in the chosen format.
    func encode(_ image: Image) throws -> (data: Data, fileExtension: String) {
        switch format {
        case .png: (try image.pngData(), "png")
        case .jpeg: (try image.jpegData(quality: quality), "jpg")
        case .auto: image.hasAlpha ? (try image.pngData(), "png") : (try image.jpegData(quality: quality), "jpg")
        }
    }

    private static func fingerprint(of source: InputSource) -> String {
        guard case .file(let path) = source,
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int, let date = attributes[.modificationDate] as? Date
        else { return "" }
        return " bytes=\(size) modified=\(date.timeIntervalSince1970)"
    }
}
