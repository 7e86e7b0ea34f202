import Foundation
import Hoard

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything that changes a thumbnail's bytes, and where it goes.
struct ThumbnailSettings: Sendable {
    let size: Int
    let format: OutputFormat
    let quality: Int
    let filter: ThumbnailFilter
    /// The output folder, an absolute path.
    let outputPath: String

    /// The cache key of a thumbnail: the source (for a local file, also its size and modification
    /// time, so an edited file is thumbnailed again) and every setting that changes the output.
    ///
    /// - Parameter identifier: The source's ``InputSource/identifier``, made once per input.
    func thumbnailKey(for source: InputSource, identifier: String) -> String {
        "thumbnail/v1 \(identifier)\(Self.fingerprint(of: source)) size=\(size) format=\(format.rawValue) quality=\(quality) filter=\(filter.rawValue)"
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

    /// ` bytes=<size> modified=<seconds>.<nanoseconds>` of a local file, from one `stat` call
    /// (`FileManager.attributesOfItem` also reads the owner's names and extended attributes).
    private static func fingerprint(of source: InputSource) -> String {
        guard case .file(let path) = source else { return "" }
        var status = stat()
        guard stat(path, &status) == 0 else { return "" }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        let padded = String(modified.tv_nsec).zeroPadded(toLength: 9)
        return " bytes=\(status.st_size) modified=\(modified.tv_sec).\(padded)"
    }
}
