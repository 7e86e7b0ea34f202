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
    ///
    /// - Parameter identifier: The URL's ``InputSource/identifier()``, credentials hashed.
    static func originalKey(identifier: String) -> String {
        "original/v1 \(identifier)"
    }

    /// The longest side a JPEG may have: libjpeg's limit (`JPEG_MAX_DIMENSION`).
    static let maximumJPEGSide = 65_500

    /// Encodes a thumbnail in the chosen format. A thumbnail that becomes a JPEG is first scaled
    /// down to fit ``maximumJPEGSide``, if `--size` let it grow larger.
    func encode(_ image: Image) throws -> (data: Data, fileExtension: String) {
        let isJPEG =
            switch format {
            case .png: false
            case .jpeg: true
            case .auto: !image.hasAlpha
            }
        guard isJPEG else { return (try image.pngData(), "png") }
        let fitting =
            max(image.width, image.height) > Self.maximumJPEGSide
            ? image.resized(toFit: Self.maximumJPEGSide, filter: filter.resamplingFilter) : image
        return (try fitting.jpegData(quality: quality), "jpg")
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
